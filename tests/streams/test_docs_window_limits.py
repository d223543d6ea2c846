"""docs/operations.md's note on window.min_transactions gives the two start-up refusals that tie the
window limits to each other and to the model, which an operator shrinking windows for latency meets:
a window.min_transactions above window.max_transactions, and (under auto) a window.max_transactions
below what the model needs of a window."""

from pathlib import Path

import pytest

from setveil.core.cli import configure
from setveil.core.errors import ParameterError
from setveil.streams.settings import fit_to_model, load_settings

DOC = " ".join((Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text(encoding="utf-8").split())


def test_the_note_gives_both_refusals_as_a_worker_makes_them(tmp_path):
    # a review from an operator's seat: the note said only that a window.min_transactions below the
    # model's need is refused, and the table gives both limits as [1, inf)
    (tmp_path / "s.txt").write_text("a\n")
    coherence = configure("coherence", None, ["h=0.4", "k=5", "p=3"], tmp_path / "s.txt", None, None, None).model
    with pytest.raises(ParameterError) as info:
        load_settings(overrides=["window.min_transactions=100", "window.max_transactions=50"], env={})
    assert info.value.name == "window.min_transactions" and "window.max_transactions=50" in info.value.problem
    with pytest.raises(ParameterError) as info:
        fit_to_model(load_settings(overrides=["window.max_transactions=3"], env={}), coherence)
    assert info.value.name == "window.max_transactions" and info.value.problem.endswith("give 5 or more")
    assert ("It may not exceed `window.max_transactions` (refused at start-up, naming both), so a "
            "`window.max_transactions` below what the model needs is refused too, under `auto`, naming "
            "`window.max_transactions` and the fewest it takes (`--set window.max_transactions=3` under coherence "
            "at k=5: `give 5 or more`)") in DOC
