import pytest

from .figure1 import FIGURE_1, PRIVATE


@pytest.fixture
def private(tmp_path):
    """Figure 1's private items, as private.txt in the test's folder."""
    path = tmp_path / "private.txt"
    path.write_text(PRIVATE)
    return path


@pytest.fixture
def files(tmp_path, private):
    """A folder holding Figure 1 (fig1.dat) and its private items (private.txt)."""
    (tmp_path / "fig1.dat").write_text(FIGURE_1)
    return tmp_path
