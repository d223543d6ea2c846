"""Where Oliveira & Zaïane are ambiguous and the model reads them one way (docs/sanitize.md,
Choices): each reading pinned on a database small enough to check by hand."""

from .helpers import as_text, write_patterns
from .test_model import run

from setveil.core.window import Window


def test_the_degree_of_conflict_is_counted_once_before_step_4(tmp_path):
    # §4 defines the degree of conflict as the number of restrictive patterns "that can be mined
    # from" a transaction, and Step 4 sorts T[rp] by it pattern after pattern; whether a
    # transaction an earlier pattern broke still counts that pattern is left open. It does: the
    # degrees are those of the window before Step 4 (§4.1: the transactions to cleanse "are
    # first marked before the database scan"). MinFIA, ψ = 0.5. "a b" (file order first) has
    # one sensitive transaction, abcd (conflict 2), which loses a (a and b tie at 1: first
    # label). "c d" is held by abcd -> bcd and cdyz, one of which may keep it. Counted once,
    # bcd still has conflict 2 and cdyz 1, so cdyz loses c (c and d tie at 2). Recounted, both
    # would have conflict 1 and the shorter, bcd, would lose c instead: ["bd", "cdyz"].
    window = Window.from_transactions([list("abcd"), list("cdyz")])
    release = run("minfia", window, write_patterns(tmp_path / "p.txt", "a b", "c d"), "0.5")
    assert as_text(release.window) == ["bcd", "dyz"]
