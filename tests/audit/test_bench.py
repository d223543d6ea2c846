"""The §4 experiment (plugins/audit/bench.py): each (run, noise level) draws its release from
the seed, the run and the noise value, so a level measures the same runs whatever other levels
are listed with it; the solver's one-off import is not counted in any solve's seconds."""

import subprocess
import sys
import textwrap

import numpy as np

from setveil.plugins.audit import bench
from setveil.plugins.audit.bench import experiment, level_rng
from setveil.plugins.audit.owner import publish, random_names

from .helpers import ASYMMETRIC, graph_database, sigma_of


def _releases(monkeypatch, noises, **kwargs):
    """Per noise level, the releases the experiment published, run by run."""
    published = {}

    def recording(collection, rng, *, noise, **options):
        release = publish(collection, rng, noise=noise, **options)
        published.setdefault(noise, []).append(release.text())
        return release

    monkeypatch.setattr(bench, "publish", recording)
    window = graph_database(ASYMMETRIC)
    experiment(window, sigma_of(window), max_size=None, noises=noises, methods=["lp"], runs=3, seed=5,
               tolerance_sds=4.0, time_limit=None, **kwargs)
    return published


def test_a_noise_levels_runs_do_not_depend_on_the_other_levels_listed(monkeypatch):
    alone = _releases(monkeypatch, [0.02])[0.02]
    assert len(set(alone)) == 3
    assert alone == _releases(monkeypatch, [0.0, 0.01, 0.02])[0.02] == _releases(monkeypatch, [0.02, 0.0])[0.02]


def test_omitted_and_false_itemsets_do_not_depend_on_the_other_levels_listed(monkeypatch):
    kwargs = {"omit": 0.1, "add": 0.1, "unmatched_cost": 1.0}
    assert _releases(monkeypatch, [0.0], **kwargs)[0.0] == _releases(monkeypatch, [0.004, 0.0], **kwargs)[0.0]


def test_the_solvers_import_is_not_counted_in_the_first_solves_seconds():
    # a fresh interpreter, where scipy.optimize (0.2-0.6 s to import) is not loaded yet; the solve's
    # clock must start after the import: every reading of the clock finds it loaded
    script = textwrap.dedent("""
        import sys, time
        from setveil.plugins.audit import program
        from setveil.plugins.audit.itemsets import ItemsetCollection
                window = Window.from_transactions([["a", "b"], ["a"]])
        collection = ItemsetCollection.mine(window, 0.5)
        assert "scipy.optimize" not in sys.modules
        loaded = []

        class Clock:
            def perf_counter(self):
                loaded.append("scipy.optimize" in sys.modules)
                return time.perf_counter()

        program.time = Clock()
        program.deanonymize(collection, collection)
        print(len(loaded), all(loaded))
    """)
    readings, all_loaded = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                                          text=True).stdout.split()
    assert int(readings) >= 2 and all_loaded == "True"


def test_a_noise_level_of_minus_zero_draws_the_release_of_level_zero():
    # --noise -0 is the level 0 (-0.0 has other bits)
    assert level_rng(5, 1, -0.0).random(4).tolist() == level_rng(5, 1, 0.0).random(4).tolist()


def test_a_levels_release_is_drawn_apart_from_the_runs_renaming():
    # without the trailing word, the level 0 (bits 0, 0) would seed [seed, run, 0, 0], which
    # SeedSequence reads as [seed, run]: the omitted itemsets drawn from the stream f was drawn from
    assert level_rng(5, 1, 0.0).random(4).tolist() != np.random.default_rng([5, 1]).random(4).tolist()


def test_each_run_draws_its_own_renaming(monkeypatch):
    drawn = []

    def recording(labels, rng):
        names = random_names(labels, rng)
        drawn.append(tuple(names[label] for label in labels))
        return names

    monkeypatch.setattr(bench, "random_names", recording)
    window = graph_database(ASYMMETRIC)
    experiment(window, sigma_of(window), max_size=None, noises=[0.0], methods=["lp"], runs=3, seed=5,
               tolerance_sds=4.0, time_limit=None)
    assert len(drawn) == 3 and len(set(drawn)) == 3

