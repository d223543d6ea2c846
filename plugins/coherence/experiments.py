"""``setveil bench coherence``: the distortion experiments of Xu et al. §4 (Figs. 8-10).

For each seed: split the items as in §4.1 (:func:`setveil.core.itemsplit.coherence_split`), then
anonymize with each policy and with RmAll (every public item suppressed), check every release
with the model's independent checker, and report the distortion S/N. ``--min-support-share``
applies the paper's preprocessing (items in fewer than that share of the transactions removed
before the split).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import click
import numpy as np

from setveil.core.bench import machine, print_table
from setveil.core.clitypes import MODEL_COUNT, SEED_MAX, FloatRange, check_bench_files, int_list, json_option
from setveil.core.engine import Pipeline, window_rng
from setveil.core.errors import InputError, WindowRejected
from setveil.core.formats import read_window
from setveil.core.itemsplit import coherence_split
from setveil.core.model import Context
from setveil.core.output import write_json
from setveil.core.params import listed, refuse_repeats
from setveil.core.plugins import get_plugin_manager, get_registry
from setveil.core.schema import ItemClass, ItemSchema
from setveil.core.verify import release_violations


#: the summary's columns; an approach none of whose runs passed the check has only the first two
SUMMARY_COLUMNS = ["approach", "runs", "distortion_mean", "distortion_sd", "find_moles_seconds", "eliminate_seconds",
                   "minimal_moles", "all_verified"]


@click.command("coherence")
@click.argument("input_path", metavar="INPUT", type=click.Path())
@click.option("--public-share", type=FloatRange(0, 1), required=True,
              help="δ: share of items drawn public; every item held by more than h of the transactions is public too "
                   "(Xu et al. §4.1).")
@click.option("--h", "h", type=FloatRange(0, 1, min_open=True), required=True,
              help="h: the largest share of a public itemset's transactions that may hold one private item; the "
                   "item split makes public every item held by more than this share.")
@click.option("--k", "k", type=MODEL_COUNT, required=True,
              help="k: the fewest transactions a public itemset that occurs must be held by.")
@click.option("--p", "p", type=MODEL_COUNT, required=True, help="p: the largest public itemset an attacker knows.")
@click.option("--seeds", "seed_list", default="1,2,3,4,5", show_default=True, callback=int_list(0, SEED_MAX),
              help="Seeds of the item splits (distinct integers from 0 to 2**32-1).")
@click.option("--policies", default="mm-il,mm,il", show_default=True, help="Policies to compare (comma-separated).")
@click.option("--min-support-share", type=FloatRange(0, 1),
              help="Paper's preprocessing: drop items held by less than this share of the transactions "
                   "(transactions left empty stay).")
@json_option()
def bench_coherence(input_path, public_share, h, k, p, seed_list, policies, min_support_share, json_path):
    """Distortion of each policy and of RmAll on INPUT, averaged over item splits (Xu et al. §4)."""
    policy_list = listed("policies", policies)
    refuse_repeats("policies", policy_list)  # QA re-check: each row then came twice
    registry = get_registry()
    params = {"h": str(h), "k": str(k), "p": str(p)}
    for name in policy_list:
        registry.configure("coherence", name, params, Context(schema=ItemSchema()))
    check_bench_files(json_path, (input_path,))
    data = read_window(input_path, format_option=None)
    if min_support_share:
        # transactions left empty stay: the paper's Table 1 counts all 88,162 of retail (QA)
        data = data.suppress(np.flatnonzero(data.supports < min_support_share * len(data)))
        if data.n_occurrences == 0:
            raise InputError(input_path, f"no transaction keeps an item held by {min_support_share:.2%} of them "
                             "(--min-support-share)")
    pm = get_plugin_manager()
    started_on = machine()  # the load average as the runs start, not as they end
    rows = []
    for seed in seed_list:
        split = coherence_split(data, public_share, seed, h)
        schema = ItemSchema(private=frozenset(split.private), public=frozenset(split.public))
        for name in policy_list:
            configured = registry.configure("coherence", name, params, Context(schema=schema))
            rows.append(_run(Pipeline(configured, pm), schema, data, seed, name))
        rows.append(_rmall(registry, params, schema, data, seed))
    approaches = policy_list + ["rmall"]
    summary = []
    for name in approaches:
        mine = [r for r in rows if r["approach"] == name and r["verified"]]
        if not mine:
            summary.append({"approach": name, "runs": 0})
            continue
        summary.append(
            {
                "approach": name,
                "runs": len(mine),
                "distortion_mean": statistics.mean(r["distortion"] for r in mine),
                "distortion_sd": statistics.pstdev(r["distortion"] for r in mine),
                "find_moles_seconds": _mean(mine, "find_moles_seconds"),
                "eliminate_seconds": statistics.mean(r["eliminate_seconds"] for r in mine),
                "minimal_moles": _mean(mine, "minimal_moles"),
                "all_verified": all(r["verified"] for r in rows if r["approach"] == name),
            }
        )
    click.echo(
        f"{Path(input_path).name}: {len(data)} transactions, {int((data.supports > 0).sum())} items"
        f"{f' (items below {min_support_share:.2%} removed)' if min_support_share else ''}; "
        f"δ={public_share}, h={h}, k={k}, p={p}, seeds {seed_list}; {started_on}"
    )
    # a refused run's reason is printed as well as written, or its row read only False
    refused = ["refused"] if any("refused" in row for row in rows) else []
    print_table(rows, ["seed", "approach", "public", "private", "distortion", "verified", "find_moles_seconds",
                       "eliminate_seconds", "minimal_moles", *refused])
    click.echo("")
    print_table(summary, SUMMARY_COLUMNS)
    if json_path:
        write_json(json_path, {"machine": started_on, "rows": rows, "summary": summary})


def _mean(rows: list[dict], key: str) -> float | None:
    """The mean of ``key`` over the rows that measured it; none when none did (RmAll's)."""
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.mean(values) if values else None


def _run(pipeline: Pipeline, schema: ItemSchema, data, seed: int, name: str) -> dict:
    classes = schema.classes(data.vocab)
    row = {
        "seed": seed,
        "approach": name,
        "public": int((classes == ItemClass.PUBLIC).sum()),
        "private": int((classes == ItemClass.PRIVATE).sum()),
    }
    try:
        outcome = pipeline.run(data, window_rng(seed, 0))
    except WindowRejected as exc:
        return {**row, "verified": False, "refused": exc.reason}
    stats = outcome.release.stats
    return {
        **row,
        "distortion": outcome.report["info_loss"],
        "verified": outcome.report["verified"],
        "find_moles_seconds": stats["find_moles_seconds"],
        "eliminate_seconds": stats["eliminate_seconds"],
        "minimal_moles": stats["minimal_moles"],
    }


def _rmall(registry, params, schema, data, seed) -> dict:
    """RmAll: every public item suppressed, checked like any other release. It searches no moles,
    so it has no count of them nor search time: none, not 0, which read as data without moles."""
    configured = registry.configure("coherence", None, params, Context(schema=schema))
    classes = schema.classes(data.vocab)
    started = time.perf_counter()
    release = data.suppress(np.flatnonzero(classes == ItemClass.PUBLIC))
    seconds = time.perf_counter() - started
    verified = not any(True for _ in release_violations(configured.model, data, release, configured.context))
    return {
        "seed": seed,
        "approach": "rmall",
        "public": int((classes == ItemClass.PUBLIC).sum()),
        "private": int((classes == ItemClass.PRIVATE).sum()),
        "distortion": configured.model.information_loss(data, release),
        "verified": verified,
        "find_moles_seconds": None,
        "eliminate_seconds": seconds,
        "minimal_moles": None,
    }
