"""What a window's outcome says to the consumers of the output and dead-letter topics, as
docs/batch-format.md and the metrics give it. Each test kills a hand-made mutant of the processor
that passed every other not-slow test (mutation review of the fail-closed path)."""

from __future__ import annotations

import msgpack

from setveil.core.engine import Pipeline
from setveil.core.formats import read_window
from setveil.core.plugins import Configured, get_plugin_manager
from setveil.core.records import Record
from setveil.streams.codec import decode_batch
from setveil.streams.processor import WindowProcessor
from setveil.streams.windowing import Cut, Message

from .test_processor import cut_of, processor


def test_a_batch_carries_the_cloudevents_headers_docs_batch_format_gives(sample):
    # mutant: the processor's batch typed org.setveil.window.rejected.v1 passed every test, and a
    # consumer that follows the docs stops at a ce_type it does not know
    data, _, _ = sample
    outcome = processor(sample).process("in", 2, cut_of(list(read_window(data))[:100], first_offset=5))
    assert outcome.emitted, outcome.reason
    assert outcome.headers == [
        ("ce_specversion", b"1.0"),
        ("ce_type", b"org.setveil.batch.v1"),
        ("ce_source", b"test"),
        ("ce_id", b"in/2/5-104"),
        ("content-type", b"application/msgpack"),
    ]


def test_a_batch_names_the_model_and_the_policy_that_made_it(sample):
    # mutant: model.policy holding the model's name passed every test
    data, _, _ = sample
    worker = processor(sample)
    configured = worker.pipeline.configured
    batch = decode_batch(worker.process("in", 0, cut_of(list(read_window(data))[:100])).value)
    assert batch["model"] == {"name": "coherence", "policy": configured.policy.name,
                              "parameters": configured.shown_params(), "context": configured.digests()}
    assert configured.policy.name != configured.model.name


def test_a_batch_and_a_rejected_window_show_a_parameter_named_like_a_secret_masked(sample):
    # mutant: model.parameters holding the parameters as given passed every other test; a batch
    # goes to every consumer of the output topic, a rejection to every one of the dead-letter
    # topic, where the startup log masks such a value (a third party's model may take one)
    data, _, _ = sample
    good = processor(sample).pipeline.configured
    configured = Configured(good.model, good.policy, {**good.params, "api_token": "hunter2"}, good.context)
    worker = WindowProcessor(Pipeline(configured, get_plugin_manager()), 3, False, "test")
    outcome = worker.process("in", 0, cut_of(list(read_window(data))[:100]))
    assert outcome.emitted, outcome.reason
    failed = worker.failed("in", 0, cut_of(list(read_window(data))[:100]), "the rest of a window", "overlap")
    for value in (decode_batch(outcome.value), msgpack.unpackb(failed.value)):
        assert value["model"]["parameters"]["api_token"] == "***"
        assert b"hunter2" not in outcome.value + failed.value


def test_an_emitted_window_counts_the_transactions_its_batch_holds_after_a_merge(sample):
    # mutant: an emitted outcome counting input records, which setveil_transactions_emitted_total
    # and setveil_window_transactions add up, passed every test; with window.merge_subjects the
    # two differ, and the metric is the batch's transactions
    data, _, _ = sample
    rows = list(read_window(data))[:100]
    records = [Record(list(items), tid=i, subject="u" if i < 3 else None) for i, items in enumerate(rows)]
    cut = Cut([Message(offset, [record], 100.0) for offset, record in enumerate(records)])
    outcome = processor(sample, merge=True).process("in", 0, cut)
    assert outcome.emitted, outcome.reason
    assert outcome.transactions == decode_batch(outcome.value)["metrics"]["transactions"] == 98
