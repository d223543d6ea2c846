import pytest

from setveil.core import mining

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


@pytest.fixture
def spectrum_sizes(monkeypatch):
    """The largest size each call of pyfim's itemset spectrum counted, in order: what a budget
    check counted before it gave its outcome (the outcome is the same whether it counted or not)."""
    sizes = []
    spectrum = mining.itemset_spectrum
    monkeypatch.setattr(mining, "itemset_spectrum", lambda *args: sizes.append(args[2]) or spectrum(*args))
    return sizes
