import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# hypothesis's per-example deadline is a timed assertion: speed is for the benchmarks, and a
# loaded CI machine would fail an example for being slow, not wrong
settings.register_profile("setveil", deadline=None)
settings.load_profile("setveil")

# Tests send Ctrl-C to the commands they start, which inherit this process's ignored SIGINT when
# the suite runs as a shell's background job (`nohup … &`): Python leaves an ignored SIGINT
# ignored, and the commands ran on (2 failures).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[1]

_BYTECODE = pytest.StashKey[tuple[str, str]]()


def pytest_configure(config):
    """With PYTHONDONTWRITEBYTECODE set, every Python the tests start (a few hundred: commands, the
    kit's pytest runs) compiled setveil and rewrote hypothesis's asserts again, about half of a
    short one's CPU time; they share a bytecode cache of this run instead, outside the checkout and
    the environment, which the variable keeps clean. xdist's workers inherit it."""
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        cache = tempfile.mkdtemp(prefix="setveil-tests-bytecode-")
        config.stash[_BYTECODE] = cache, os.environ.pop("PYTHONDONTWRITEBYTECODE")
        os.environ["PYTHONPYCACHEPREFIX"] = cache


def pytest_unconfigure(config):
    if _BYTECODE in config.stash:
        cache, os.environ["PYTHONDONTWRITEBYTECODE"] = config.stash[_BYTECODE]
        del os.environ["PYTHONPYCACHEPREFIX"]
        shutil.rmtree(cache, ignore_errors=True)


def datasets_dir() -> Path | None:
    """The benchmark datasets: $SETVEIL_DATASETS, else shared/datasets beside the checkout or the workplace copy."""
    explicit = os.environ.get("SETVEIL_DATASETS")
    candidates = [Path(explicit)] if explicit else []
    candidates += [REPO.parent / "shared" / "datasets", REPO.parent.parent / "shared" / "datasets"]
    candidates.append(Path("/work/shared/datasets"))
    for path in candidates:
        if (path / "MANIFEST.md").exists():
            return path
    return None


@pytest.fixture(scope="session")
def datasets() -> Path:
    path = datasets_dir()
    if path is None:
        pytest.skip("benchmark datasets not found: set SETVEIL_DATASETS")
    return path


@pytest.fixture(scope="module")
def runner():
    """A click runner of ``setveil``'s commands, the plugins' (audit, patterns, bench …) among them."""
    from click.testing import CliRunner
    from setveil.core.cli import _load_plugin_commands

    _load_plugin_commands()
    return CliRunner()


@pytest.fixture
def altered(monkeypatch):
    """``altered(ModelClass, change)``: the class then releases ``change(window, release)`` for each
    window it is given, ``release`` being what its own run gives, a model that misbehaves in one
    way, for the tests that what a command writes or reports does not take the model's word."""

    def alter(model_class, change) -> None:
        anonymize = model_class.anonymize

        def changed(self, window, policy, rng):
            return change(window, anonymize(self, window, policy, rng))

        monkeypatch.setattr(model_class, "anonymize", changed)

    return alter


@pytest.fixture
def leaking(altered):
    """``leaking(ModelClass)``: the class then releases each window it is given unchanged, with the
    stats its own run gives, a model that leaks, for the tests that a check counts what it let
    through (the benchmarks' releases all pass it otherwise)."""
    from setveil.core.model import Release

    def leak(model_class) -> None:
        altered(model_class, lambda window, release: Release(window, stats=release.stats))

    return leak


@pytest.fixture
def register_plugin():
    """``register_plugin(plugin, name=None)``: the plugin manager, made afresh for the test, with
    ``plugin`` registered by hand as a plugin not yet packaged is; after the test, the installed
    plugins alone again, so that no other test's registry holds it."""
    from setveil.core.plugins import get_plugin_manager, reset

    def register(plugin, name=None):
        manager = get_plugin_manager()
        manager.register(plugin, name=name)
        return manager

    reset()
    yield register
    reset()


def pytest_collection_modifyitems(items):
    """A test that reads the benchmark datasets or starts the broker is slow, as the marker says,
    without each file having to mark it: `-m "not slow"` is documented to leave both out."""
    for item in items:
        if {"datasets", "broker"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
