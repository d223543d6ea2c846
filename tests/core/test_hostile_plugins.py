"""A plugin that misbehaves after its release is made cannot change what is written or emitted.

Regressions from a QA pass as a hostile plugin author. Each case installs a real distribution
whose models suppress the items of support below k (a correct model and check) and then do one
thing wrong, and runs the real command line.
"""

import subprocess
import sys

import pytest

from .distributions import KSUP_SOURCE, install_plugin, setveil

SOURCE = KSUP_SOURCE + '''
import atexit
import dataclasses
import os

from setveil import Hierarchy, Window, hookimpl

print("imported: a line for standard output")


def densify(window):
    """Renumbers the window's ids in place: what the QA's plugins did after the check."""
    _, dense = np.unique(window.indices, return_inverse=True)
    window.indices[:] = dense


class RewritesInMetrics(KSup):
    name = "ksup-metrics"

    def metrics(self, original, release):
        densify(release)
        return {}


class RewritesInCheck(KSup):
    name = "ksup-check"

    def violations(self, original, release):
        found = list(KSup.violations(self, original, release))
        densify(release)
        yield from found


class ReusesItsBuffer(KSup):
    """Builds each release in one buffer it keeps, so a window's release changes with the next."""

    name = "ksup-buffer"

    def anonymize(self, window, policy, rng):
        kept = KSup.anonymize(self, window, policy, rng).window
        if not hasattr(self, "buffer") or len(self.buffer) < len(window.indices):
            self.buffer = np.zeros(max(len(window.indices), 64), dtype=np.int32)
        self.buffer[:] = 0
        self.buffer[:len(window.indices)] = window.indices
        self.buffer[:len(kept.indices)] = kept.indices
        return Release(Window(window.vocab, kept.indptr, self.buffer[:len(kept.indices)], window.tids))


class Prints(KSup):
    name = "ksup-prints"

    def anonymize(self, window, policy, rng):
        print("from print: a line for standard output")
        os.write(1, b"from the descriptor: a line for standard output\\n")
        atexit.register(print, "at exit: a line for standard output")
        return KSup.anonymize(self, window, policy, rng)


class AddsALabel(KSup):
    """A generalizing model that adds a label of its own to every transaction."""

    name = "ksup-decoy"
    transformation = Transformation.GENERALIZATION
    needs_hierarchy = True

    def anonymize(self, window, policy, rng):
        decoy = window.vocab.intern("DECOY")
        rows = [sorted({*map(int, window.row(i)), decoy}) for i in range(len(window))]
        flat = np.array([item for row in rows for item in row], dtype=np.int32)
        return Release(Window.from_flat(window.vocab, [len(row) for row in rows], flat, window.tids))

    def violations(self, original, release):
        return iter(())


class BringsItsOwnHierarchy(AddsALabel):
    """Generalizes every item to the root of a hierarchy it makes, which it puts in its context."""

    name = "ksup-ownhierarchy"

    def anonymize(self, window, policy, rng):
        labels = list(window.vocab.labels)
        mine = Hierarchy(["MINE", *labels], [-1, *([0] * len(labels))])
        self.context = dataclasses.replace(self.context, hierarchy=mine)
        root = window.vocab.intern("MINE")
        return Release(Window.from_flat(window.vocab, [1] * len(window), [root] * len(window), window.tids))


class RenamesTheRoot(AddsALabel):
    """Renames the root of the hierarchy it was given, in place, and releases every item as it."""

    name = "ksup-renamesroot"

    def anonymize(self, window, policy, rng):
        hierarchy = self.context.hierarchy_for(window)
        hierarchy.index["MINE"] = hierarchy.index.pop(hierarchy.labels[0])
        hierarchy.labels[0] = "MINE"
        root = window.vocab.intern("MINE")
        return Release(Window.from_flat(window.vocab, [1] * len(window), [root] * len(window), window.tids))


class ClosesAGenerator(KSup):
    name = "ksup-genexit"

    def anonymize(self, window, policy, rng):
        raise GeneratorExit("secret " + " ".join(window.labels(0)))


class SafePerWindow(KSup):
    name = "ksup-perwindow"
    union_safe = False


MODELS = (KSup, RewritesInMetrics, RewritesInCheck, ReusesItsBuffer, Prints, AddsALabel, BringsItsOwnHierarchy,
          RenamesTheRoot, ClosesAGenerator, SafePerWindow)


@hookimpl
def setveil_register_privacy_models(register):
    for model in MODELS:
        register(model)


@hookimpl
def setveil_register_policies(register):
    register(Plain)
    for model in MODELS[1:]:
        register(type(f"Plain_{model.__name__}", (model.policy_base, ), {"name": "plain", "model": model.name,
                                                                        "summary": "the only way"}))
'''

DATA = "a b c\nHIV a\na b x\nb c x\na b c\nHIV z q\nHIV w\nr t\n"
#: what KSup releases of DATA at k=2, window by window (--window 4) and whole; a release lists
#: a transaction's items in the order the input first names them
RELEASED_IN_WINDOWS = "a b c\na\na b x\nb c x\n\nHIV\nHIV\n\n"
RELEASED_WHOLE = "a b c\na HIV\na b x\nb c x\na b c\nHIV\nHIV\n\n"


@pytest.fixture
def env(tmp_path):
    return install_plugin(tmp_path / "site", "hostile-dist", "hostileplugin", SOURCE, "hostile")


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "in.dat"
    path.write_text(DATA)
    return path


def error(result) -> str:
    """The last line on standard error (the plugin's import prints a line before it)."""
    return result.stderr.splitlines()[-1]


@pytest.fixture(autouse=True)
def site(tmp_path):
    (tmp_path / "site").mkdir()


def test_the_models_release_what_they_check(env, data, tmp_path):
    out = tmp_path / "out.dat"
    result = setveil(env, "anonymize", str(data), "-o", str(out), "-m", "ksup", "-P", "k=2", "--window", "4")
    assert result.returncode == 0, result.stderr
    assert out.read_text() == RELEASED_IN_WINDOWS


def test_metrics_that_write_into_the_release_fail_the_run_and_write_nothing(env, data, tmp_path):
    # the report's metrics were given the release that was then written: renumbered ids put the
    # suppressed items back into the file, with "verified": true
    out = tmp_path / "out.dat"
    result = setveil(env, "anonymize", str(data), "-o", str(out), "-m", "ksup-metrics", "-P", "k=2",
                     "--report", str(tmp_path / "r.json"))
    assert result.returncode == 2
    assert error(result) == ("setveil: error: model 'ksup-metrics': metrics raised ValueError: it wrote into a "
                             "read-only array (the windows it is given are; compute on a copy)")
    assert not out.exists()


def test_a_checker_that_writes_into_the_release_fails_the_window_closed(env, data, tmp_path):
    out = tmp_path / "out.dat"
    result = setveil(env, "anonymize", str(data), "-o", str(out), "-m", "ksup-check", "-P", "k=2")
    assert result.returncode == 1
    assert error(result) == ("setveil: error: window 0 (transactions 0..7) rejected, nothing written: checker error: "
                             "ValueError: the checker wrote into a read-only array (the windows it is given are; "
                             "compute on a copy)")
    assert not out.exists()


def test_a_model_that_reuses_its_release_buffer_releases_each_window_as_checked(env, data, tmp_path):
    # every window's release was the same buffer, rewritten by the next window after its check:
    # the file held window 1's raw items in window 0's lines
    out = tmp_path / "out.dat"
    result = setveil(env, "anonymize", str(data), "-o", str(out), "-m", "ksup-buffer", "-P", "k=2", "--window", "4")
    assert result.returncode == 0, result.stderr
    assert out.read_text() == RELEASED_IN_WINDOWS
    verdict = setveil(env, "verify", str(data), str(out), "-m", "ksup", "-P", "k=2", "--window", "4")
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr


def test_verify_in_windows_says_when_the_model_does_not_promise_their_union_safe(env, data, tmp_path):
    # review: a worker says so at its start, and verify --window said only "satisfies", which reads
    # as a verdict on the release a consumer joins
    out = tmp_path / "out.dat"
    made = setveil(env, "anonymize", str(data), "-o", str(out), "-m", "ksup-perwindow", "-P", "k=2", "--window", "4")
    assert made.returncode == 0, made.stderr
    note = ("setveil: note: model 'ksup-perwindow' does not promise that the union of safe windows is safe: each "
            "window is checked on its own, not the release they make together\n")
    verdict = setveil(env, "verify", str(data), str(out), "-m", "ksup-perwindow", "-P", "k=2", "--window", "4")
    assert verdict.returncode == 0 and note in verdict.stderr, verdict.stdout + verdict.stderr
    windows = tmp_path / "windows.txt"  # the same windows, named as `setveil tail --windows` names them
    windows.write_text("in/0/0-3\n" * 4 + "in/0/4-7\n" * 4)
    named = setveil(env, "verify", str(data), str(out), "-m", "ksup-perwindow", "-P", "k=2", "--windows", str(windows))
    assert named.returncode == 0 and note in named.stderr, named.stdout + named.stderr
    whole = setveil(env, "verify", str(data), str(out), "-m", "ksup", "-P", "k=2", "--window", "4")
    assert whole.returncode == 0 and "union" not in whole.stderr


def test_what_plugin_code_prints_stays_out_of_a_release_on_standard_output(env, data):
    # print() in the model, os.write(1, ...) and a print at import all landed in `-o -`'s release
    result = setveil(env, "anonymize", str(data), "-o", "-", "-m", "ksup-prints", "-P", "k=2")
    assert result.returncode == 0, result.stderr
    assert result.stdout == RELEASED_WHOLE
    for line in ("imported:", "from print:", "from the descriptor:", "at exit:"):
        assert line + " a line for standard output\n" in result.stderr


def test_with_standard_error_closed_what_plugin_code_prints_is_dropped(env, data):
    # QA re-check: with descriptor 2 closed, the data's duplicate of descriptor 1 took it, and
    # moving 1 onto 2 left it on the data
    command = f'"{sys.executable}" -m setveil anonymize "{data}" -o - -m ksup-prints -P k=2 2>&-'
    result = subprocess.run(["sh", "-c", command], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == RELEASED_WHOLE


def test_a_generalizing_model_is_held_to_its_hierarchy_by_the_core(env, data, tmp_path):
    # its own checker passes everything; the core's check finds the label no hierarchy node has
    out = tmp_path / "out.dat"
    result = setveil(env, "anonymize", str(data), "-o", str(out), "-m", "ksup-decoy", "-P", "k=2", "--fanout", "2")
    assert result.returncode == 1
    assert error(result).startswith("setveil: error: window 0 (transactions 0..7) rejected, nothing written: release "
                                    "failed the ksup-decoy check: 1 violation; first: unknown-label: 8 released "
                                    "labels are not nodes of the hierarchy")
    assert not out.exists()


def test_a_generator_exit_from_a_model_fails_its_window_in_one_line(env, data, tmp_path):
    # QA re-check: it passed every handler as Python's own, and ended in a traceback quoting the data
    result = setveil(env, "anonymize", str(data), "-o", str(tmp_path / "out.dat"), "-m", "ksup-genexit", "-P", "k=2")
    assert result.returncode == 1
    assert error(result) == ("setveil: error: window 0 (transactions 0..7) rejected, nothing written: model error: "
                             "GeneratorExit")
    assert "secret" not in result.stderr


@pytest.mark.parametrize("model", ["ksup-ownhierarchy", "ksup-renamesroot"])
def test_the_core_checks_a_generalization_against_the_users_hierarchy(env, data, tmp_path, model):
    # QA re-checks: a model that swapped its context's hierarchy for its own, or renamed the root
    # of the one it was given in place, had its release checked against that, and every
    # transaction came out as one label of the model's choosing
    out = tmp_path / "out.dat"
    result = setveil(env, "anonymize", str(data), "-o", str(out), "-m", model, "-P", "k=2", "--fanout", "2")
    assert result.returncode == 1
    assert error(result).startswith("setveil: error: window 0 (transactions 0..7) rejected, nothing written: release "
                                    f"failed the {model} check: 2 violations; first: unknown-label: ")
    assert not out.exists()
