import os
import signal
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


def pytest_collection_modifyitems(items):
    """A test that reads the benchmark datasets is slow, as the marker says, without each file
    having to mark it."""
    for item in items:
        if "datasets" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
