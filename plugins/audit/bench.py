"""The experiment of Mielikäinen (2004), §4: how much of the true item naming the integer,
mixed-integer and linear programs recover as the published frequencies get noisier, against a
uniform vote over the candidate namings.

Each run draws a new anonymization f and, per noise level, new noise. The generator of a run's
noise level is seeded by the seed, the run and the noise value itself, so a level's runs are the
same whatever other levels are measured with it. The itemsets mined from f(D) are F(σ, D)
renamed by f: renaming changes no support, so the run renames the collection mined once instead
of mining f(D) again (a test checks the two are the same).

The uniform baseline needs no program: it is measured once per run and noise level from the
published and mined itemsets alone, so every method of a noise level is compared with the same
baseline, whether or not its program found a naming.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np

from setveil.core.errors import Infeasible, ParameterError
from setveil.core.window import Window

from .itemsets import ItemsetCollection
from .owner import publish, random_names
from .program import ProgramTooLarge, SolverFailed, SolverStopped, deanonymize, uniform_accuracy


def experiment(
    window: Window,
    sigma: float,
    *,
    max_size: int | None,
    noises: list[float],
    methods: list[str],
    runs: int,
    seed: int,
    tolerance_sds: float,
    time_limit: float | None,
    omit: float = 0.0,
    add: float = 0.0,
    unmatched_cost: float | None = None,
    linking: str = "cover",
    determine: bool = False,
    progress: Callable[[dict], None] | None = None,
) -> tuple[ItemsetCollection, list[dict]]:
    """One row per (run, noise, method): the accuracy (weight on the true naming over the
    number of published items), the uniform baseline's, the shares of names determined and
    unsettled (with ``determine``), and the program's size and time. ``progress`` is called with
    each row as it is measured. A run whose program has no solution, none found in the time
    limit, or would be past the budget of itemset pairs (``too_large``, its reason under
    ``refused``), scores 0 and is counted, and the grid goes on."""
    frequent = ItemsetCollection.mine(window, sigma, max_size)
    if not len(frequent):
        # an accuracy over no items would read 0 (0 of 0), as if the attack had failed
        raise ParameterError("sigma", f"{sigma!r}: no itemset is that frequent, so there is nothing to publish")
    rows = []
    for run in range(runs):
        names = random_names(frequent.labels, np.random.default_rng([seed, run]))
        mined = frequent.renamed(names)
        for noise in noises:
            published = publish(frequent, level_rng(seed, run, noise), noise=noise, omit=omit, add=add)
            tolerance = tolerance_sds * noise
            uniform = uniform_accuracy(published, mined, tolerance, names)
            for method in methods:
                row = {"run": run, "noise": noise, "method": method, "itemsets": len(published),
                       "items": len(published.labels), "uniform": uniform}
                try:
                    naming = deanonymize(published, mined, method=method, tolerance=tolerance,
                                         unmatched_cost=unmatched_cost, time_limit=time_limit,
                                         linking=linking, determine=determine and method != "lp")
                except (Infeasible, SolverStopped, ProgramTooLarge, SolverFailed) as exc:
                    # a program past the budget is where the attack stops at this setting, as the time
                    # limit is: it ended the whole grid, with the rows measured before it unprinted (review)
                    row.update(accuracy=0.0, determined=None, unsettled=None, optimal=False,
                               infeasible=isinstance(exc, Infeasible), timed_out=isinstance(exc, SolverStopped),
                               too_large=isinstance(exc, ProgramTooLarge),
                               solver_failed=isinstance(exc, SolverFailed),
                               refused=str(exc) if isinstance(exc, (ProgramTooLarge, SolverFailed)) else None,
                               seconds=None, variables=None)
                else:
                    row.update(accuracy=naming.accuracy(names), determined=_share(naming.determined, published),
                               unsettled=_share(naming.unsettled, published), optimal=naming.optimal,
                               infeasible=False, timed_out=False, too_large=False, solver_failed=False, refused=None,
                               seconds=naming.seconds, variables=naming.variables)
                rows.append(row)
                if progress is not None:
                    progress(row)
    return frequent, rows


def level_rng(seed: int, run: int, noise: float) -> np.random.Generator:
    """The generator of one run's release at one noise level, from the noise value's bits rather
    than its position in the list, so that adding or dropping a level changes no other level."""
    bits = int(np.float64(noise + 0.0).view(np.uint64))  # + 0.0: -0.0 is the level 0.0
    # the trailing 1 keeps the entropy apart from the renaming's [seed, run]: SeedSequence reads
    # trailing zero words as absent
    return np.random.default_rng([seed, run, bits & 0xFFFFFFFF, bits >> 32, 1])


def _share(labels, published: ItemsetCollection) -> float | None:
    return None if labels is None else len(labels) / max(1, len(published.labels))


def summary(rows: list[dict]) -> list[dict]:
    """Mean accuracy (and its standard deviation over runs) per noise and method, with the
    uniform baseline (one per noise level: the mean over its runs), the runs that hit the time
    limit, those without a solution, those whose program was past the budget and those where the
    solver failed."""
    groups: dict[tuple[float, str], list[dict]] = {}
    baseline: dict[float, dict[int, float]] = {}
    for row in rows:
        groups.setdefault((row["noise"], row["method"]), []).append(row)
        baseline.setdefault(row["noise"], {})[row["run"]] = row["uniform"]
    table = []
    for (noise, method), members in groups.items():
        accuracy = [m["accuracy"] for m in members]
        seconds = [m["seconds"] for m in members if m["seconds"] is not None]
        variables = [m["variables"] for m in members if m["variables"] is not None]
        determined = [m["determined"] for m in members if m["determined"] is not None]
        unsettled = [m["unsettled"] for m in members if m["unsettled"] is not None]
        table.append({
            "noise": noise,
            "method": method,
            "runs": len(members),
            "accuracy": statistics.fmean(accuracy),
            "sd": statistics.pstdev(accuracy),
            "uniform": statistics.fmean(baseline[noise].values()),
            "determined": statistics.fmean(determined) if determined else None,
            "unsettled": statistics.fmean(unsettled) if unsettled else None,
            "not_optimal": sum(1 for m in members
                               if not (m["optimal"] or m["infeasible"] or m["timed_out"] or m["too_large"]
                                       or m["solver_failed"])),
            "no_naming_in_time": sum(1 for m in members if m["timed_out"]),
            "infeasible": sum(1 for m in members if m["infeasible"]),
            "too_large": sum(1 for m in members if m["too_large"]),
            "solver_failed": sum(1 for m in members if m["solver_failed"]),
            "variables": statistics.fmean(variables) if variables else None,
            "seconds": statistics.fmean(seconds) if seconds else None,
        })
    return table
