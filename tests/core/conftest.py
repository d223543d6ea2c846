import pytest

from .figure1 import FIGURE_1, PRIVATE


@pytest.fixture
def files(tmp_path):
    """A folder holding Figure 1 (fig1.dat) and its private items (private.txt)."""
    (tmp_path / "fig1.dat").write_text(FIGURE_1)
    (tmp_path / "private.txt").write_text(PRIVATE)
    return tmp_path
