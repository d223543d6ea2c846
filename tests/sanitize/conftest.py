import pytest

from setveil.core.window import Window

from .helpers import FIG3, write_patterns


@pytest.fixture
def fig3() -> Window:
    return Window.from_transactions(FIG3)


@pytest.fixture
def fig3_patterns(tmp_path) -> str:
    return write_patterns(tmp_path / "restrictive.txt", "A B D", "A C D")
