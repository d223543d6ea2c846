"""Time per window, by stage, of what a worker does to a window besides the model's own work, with
no broker: the worker's own functions on a file's transactions, packed as ``setveil replay
--batch`` packs them.

    python scripts/window_stages.py retail.dat -m rho -P rho=0.7 -P workers=1 --sensitive s.txt \
        --window 1000 --windows 20

A window takes whole messages, as a worker cuts one: where ``--batch`` does not divide ``--window``
it holds fewer transactions, and the first line says how many. The file's last message, holding
fewer than ``--batch``, makes no window: the worker would cut it by time, shorter than the others.

Stages, each the median over the windows of the thread's CPU milliseconds (other work on a
shared machine moves wall-clock times more): ``decode`` (the window's messages,
:func:`~setveil.streams.codec.decode_message`), ``windowing`` (each decoded message held and the
window cut, :class:`~setveil.streams.windowing.Windower`), ``build`` (its columnar window,
:func:`~setveil.streams.processor.build_window`), ``misspelling`` (the item lists' misspelling
check), ``pipeline`` (:meth:`~setveil.core.engine.Pipeline.run`: the model's anonymize and check,
the copies, the information loss), ``batch`` (the released transactions with their tids, the
batch encoded, its headers, as :meth:`~setveil.streams.processor.WindowProcessor.run` makes them),
``send`` (what the actor computes before it sends: the batch's size as the Kafka client counts it
and the window log's entry), ``metrics`` (:meth:`~setveil.streams.metrics.ServiceMetrics.emitted`)
and ``dead_letter`` (the same window rejected: the observers' copy and the dead letter).

``--profile FILE`` writes a cProfile of every stage but the pipeline's. Its cost of a call
outweighs that of a C call per item (``dict.setdefault`` in a comprehension): a step it shows as
costly may not be, so compare the stage's CPU times of this script before and after a change.
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import time

from setveil.core.engine import Pipeline, window_rng
from setveil.core.errors import SetveilError, WindowRejected
from setveil.core.formats import read_window
from setveil.core.plugins import get_plugin_manager
from setveil.streams import causes, codec
from setveil.streams.metrics import ServiceMetrics
from setveil.streams.commands import configure_model, model_settings
from setveil.streams.processor import Prepared, WindowProcessor, build_window
from setveil.streams.replay import messages
from setveil.streams.settings import load_settings
from setveil.streams.windowing import Message, Windower
from setveil.streams.windowlog import encode_entry

STAGES = ("decode", "windowing", "build", "misspelling", "pipeline", "batch", "send", "metrics", "dead_letter")
MAX_MESSAGE_BYTES = 1 << 20
MAX_SECONDS = 5.0


class Clock:
    """Seconds per stage of one window; the profiler, when given, runs outside the model alone."""

    def __init__(self, profile: cProfile.Profile | None):
        self.profile = profile
        self.spent: dict[str, float] = {}

    def __call__(self, stage: str):
        clock = self

        class Span:
            def __enter__(self):
                if clock.profile is not None and stage != "pipeline":
                    clock.profile.enable()
                self.began = time.thread_time()

            def __exit__(self, *exc):
                clock.spent[stage] = clock.spent.get(stage, 0.0) + time.thread_time() - self.began
                if clock.profile is not None:
                    clock.profile.disable()

        return Span()


def one_window(processor: WindowProcessor, metrics: ServiceMetrics, values: list[bytes], offset: int,
               size: int, clock: Clock) -> int:
    """The stages of the window of ``size`` transactions that ``values`` (messages from ``offset``) make."""
    with clock("decode"):
        decoded = [codec.decode_message(value, MAX_MESSAGE_BYTES) for value in values]
    with clock("windowing"):
        windower = Windower(size, 1, MAX_SECONDS, max_bytes=MAX_MESSAGE_BYTES * 1024)
        received = time.time()
        for index, (value, records) in enumerate(zip(values, decoded)):
            windower.add(Message(offset + index, records, received, size=len(value)))
        # every message given is the window's: cut by size where they fill it, else by time
        cut, = windower.cuts(received + MAX_SECONDS)
        cut.repeated_tids
    with clock("build"):
        built = build_window(cut, 0, processor.merge_subjects)
    with clock("misspelling"):
        reason = processor._misspelt(built.window)
    if reason is not None:
        raise WindowRejected(reason)
    ref = processor._ref("in", 0, cut)
    with clock("pipeline"):
        outcome = processor.pipeline.run(built.window, window_rng(processor.seed, ref.id))
    report = outcome.report
    with clock("batch"):
        released = outcome.release.window
        model = processor.pipeline.model
        batch_metrics = {"transactions": report["transactions"], "records": built.records,
                         "items_in": report["items_before"], "items_out": report["items_after"],
                         "information_loss": report["info_loss"], "loss_metric": model.loss_metric,
                         "anonymize_seconds": report["anonymize_seconds"], "verify_seconds": report["verify_seconds"]}
        value = codec.encode_released(ref, processor.model_map, report["verified"], batch_metrics, built.fields,
                                      released)
        headers = codec.cloudevents_headers(codec.BATCH_TYPE, ref.id, processor.source)
    with clock("send"):
        batch_bytes = codec.message_bytes(b"in/0", value, headers)
        encode_entry(cut.first_offset, cut.last_offset)
    with clock("metrics"):
        metrics.emitted(len(built.window), 1.0, 0.5, report["info_loss"], batch_bytes)
    prepared = Prepared(ref, built)
    with clock("dead_letter"):
        processor.rejected(prepared, "infeasible: the bench's own rejection", causes.INFEASIBLE)
    return len(built.window)


def _count(text: str) -> int:
    """A count of at least one: a window or a message of no transactions is none the worker makes (a
    window of 0 left the script looping for ever, a batch of 0 divided by it)."""
    try:
        if (count := int(text)) >= 1:
            return count
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"got {text!r}, allowed: an integer in [1, inf)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("-m", "--model", required=True)
    parser.add_argument("--policy")
    parser.add_argument("-P", "--param", action="append", default=[])
    parser.add_argument("--sensitive")
    parser.add_argument("--public")
    parser.add_argument("--hierarchy", help="a generalizing model's hierarchy file, as serve --hierarchy")
    parser.add_argument("--window", type=_count, default=1000)
    parser.add_argument("--windows", type=_count, default=20, help="windows measured, from the file's start")
    parser.add_argument("--batch", type=_count, default=100, help="records per message, as replay --batch")
    parser.add_argument("--profile", help="write a cProfile of the stages outside the model here")
    args = parser.parse_args()
    try:
        # the model as a worker configures it, from the settings serve's model options make
        settings = load_settings(None, model_settings(args.model, args.policy, tuple(args.param), args.sensitive,
                                                      args.public, args.hierarchy, None), env={})
        configured = configure_model(settings)
        data = read_window(args.input)
    except SetveilError as exc:
        parser.exit(exc.exit_code, f"{parser.prog}: error: {exc}\n")
    processor = WindowProcessor(Pipeline(configured, get_plugin_manager()), 0, False, "setveil/bench")
    metrics = ServiceMetrics(dict, 5.0, 1 << 20)
    # the whole messages a window of at most --window takes, as the worker cuts one: a message that
    # would take it past --window starts the next (one message, when it alone holds more)
    per_window = max(1, args.window // args.batch)
    packed = [(transactions, value) for _, _, transactions, value
              in messages(data, args.batch, count=per_window * args.batch * args.windows)]
    profile = cProfile.Profile() if args.profile else None
    rows, sizes = [], []
    for index in range(args.windows):
        taken = packed[index * per_window:(index + 1) * per_window]
        # the file's last message may hold fewer than --batch: a window of it, which the worker
        # cuts by time, would be shorter than the others and move their medians
        if sum(transactions for transactions, _ in taken) < per_window * args.batch:
            break
        values = [value for _, value in taken]
        clock = Clock(profile)
        try:
            sizes.append(one_window(processor, metrics, values, index * per_window, args.window, clock))
        except WindowRejected as exc:
            # a worker dead-letters such a window: there is no batch to time, and the stages a
            # rejected window goes through are the ones timed as dead_letter
            parser.exit(exc.exit_code, f"{parser.prog}: error: window {index + 1} of {args.input} failed closed, as a "
                                       f"worker would dead-letter it: {exc.reason}\n")
        rows.append(clock.spent)
    if not rows and args.batch > args.window:
        parser.error(f"{args.input} holds fewer than --batch {args.batch} transactions, the one message a window of "
                     f"--window {args.window} takes")
    if not rows:
        parser.error(f"{args.input} holds fewer than --window {args.window} transactions")
    print(f"{args.input}: {len(rows)} windows of {sizes[0]}, model {args.model} {' '.join(args.param)}; "
          "median CPU ms per window")
    outside = [sum(row[stage] for stage in STAGES if stage != "pipeline") for row in rows]
    for stage in STAGES:
        print(f"  {stage:12} {1000 * statistics.median(row[stage] for row in rows):9.2f}")
    print(f"  {'outside the pipeline':12} {1000 * statistics.median(outside):9.2f}")
    if profile is not None:
        profile.dump_stats(args.profile)


if __name__ == "__main__":
    main()
