"""The independent checker: it must catch every kind of bad release and agree with brute force."""

from fractions import Fraction

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window
from setveil.plugins.sanitize import checker
from setveil.plugins.sanitize.checker import sanitize_violations
from setveil.plugins.sanitize.patterns import RestrictivePatterns

from .helpers import write_patterns


def rules(original, release, path, psi):
    # each row a list of labels or, for the worked example's one-letter items, a str of them
    released = Window.from_transactions([list(row) for row in release], vocab=original.vocab.copy())
    return [v.rule for v in sanitize_violations(original, released, RestrictivePatterns.load(path), psi)]


def test_a_good_release_passes(fig3, fig3_patterns):
    assert rules(fig3, ["ABC", "ABC", "AB", "AC", "ABC", "BD"], fig3_patterns, 0.0) == []


def test_disclosure_beyond_psi(fig3, fig3_patterns):
    # ABD still in T1 and T3: 2 of 2 > 0.5; ACD in T1 only: 1 of 2 is allowed at 0.5
    found = list(sanitize_violations(fig3, fig3, RestrictivePatterns.load(fig3_patterns), 0.5))
    assert [v.rule for v in found] == ["disclosed", "disclosed"]
    release = Window.from_transactions([list(t) for t in ["ABCD", "ABC", "AB", "AC", "ABC", "BD"]], vocab=fig3.vocab)
    found = list(sanitize_violations(fig3, release, RestrictivePatterns.load(fig3_patterns), 0.0))
    assert len(found) == 2 and found[0].itemset == ("A", "B", "D")
    assert "line 1" in found[0].summary and not set(found[0].summary.split()) & {"A", "B", "C", "D"}
    assert rules(fig3, ["ABCD", "ABC", "AB", "AC", "ABC", "BD"], fig3_patterns, 0.5) == []


def test_added_items_emptied_transactions_and_shape(fig3, fig3_patterns):
    assert rules(fig3, ["ABC", "ABC", "AB", "ACE", "ABC", "BD"], fig3_patterns, 0.0) == ["added-item"]
    assert rules(fig3, ["ABC", "ABC", "AB", "", "ABC", "BD"], fig3_patterns, 0.0) == ["emptied"]
    assert rules(fig3, ["ABC", "ABC", "AB", "AC", "ABC"], fig3_patterns, 0.0) == ["shape"]


def test_psi_allows_the_floor_of_its_share_and_an_emptied_transaction_is_named_with_the_rest(tmp_path):
    # Mutation testing: rounding psi * |T[rp]| up, counting |T[rp]| one too many, sparing emptied
    # transactions of one item, or stopping at an emptied one passed every hand-made test
    original = Window.from_transactions([["a", "b"], ["a", "b"], ["a", "b"], ["c"]])
    path = write_patterns(tmp_path / "patterns.txt", "a b")
    # psi * |T[rp]| = 1.5: one of the three may still hold a b, two may not
    assert rules(original, [["a", "b"], ["a"], ["b"], ["c"]], path, 0.5) == []
    assert rules(original, [["a", "b"], ["a", "b"], ["b"], ["c"]], path, 0.5) == ["disclosed"]
    assert rules(original, [["a", "b"], ["a", "b"], ["b"], []], path, 0.5) == ["emptied", "disclosed"]


def test_every_pattern_is_checked_when_the_patterns_of_one_length_take_several_chunks(tmp_path, monkeypatch):
    # Mutation pass: checking only the first chunk of each pattern length passed every test, as
    # none had more patterns of one length than a chunk of 16 MiB of bitsets holds
    monkeypatch.setattr(checker, "CHUNK_BYTES", 8)  # one pattern a chunk
    original = Window.from_transactions([["a", "b", "c", "d"]] * 4)
    path = write_patterns(tmp_path / "patterns.txt", "a b", "c d", "a c")
    release = Window.from_transactions([["a", "c"]] * 4, vocab=original.vocab)
    found = list(sanitize_violations(original, release, RestrictivePatterns.load(path), 0.0))
    assert [(v.rule, v.itemset) for v in found] == [("disclosed", ("a", "c"))]
    assert "line 3" in found[0].summary


def test_a_release_over_another_vocabulary(fig3, fig3_patterns):
    release = Window.from_transactions([list(t) for t in ["ABC", "ABC", "AB", "AC", "ABC", "BD"]], vocab=Vocabulary(["D", "C"]))
    assert list(sanitize_violations(fig3, release, RestrictivePatterns.load(fig3_patterns), 0.0)) == []


ALPHABET = [f"i{j}" for j in range(6)]


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(st.lists(st.sampled_from(ALPHABET), unique=True, max_size=5), max_size=25),
    patterns=st.lists(st.lists(st.sampled_from(ALPHABET), unique=True, min_size=2, max_size=3), min_size=1, max_size=4),
    psi=st.sampled_from([0.0, 0.2, 0.5, 0.8]),
    seed=st.integers(0, 1000),
)
def test_verdict_matches_brute_force(tmp_path_factory, rows, patterns, psi, seed):
    unique = list(dict.fromkeys(frozenset(p) for p in patterns))
    path = write_patterns(tmp_path_factory.mktemp("p") / "p.txt", *(" ".join(sorted(p)) for p in unique))
    rng = np.random.default_rng(seed)
    released = [[item for item in row if rng.random() < 0.7] for row in rows]
    original = Window.from_transactions(rows)
    release = Window.from_transactions(released, vocab=original.vocab)
    found = list(sanitize_violations(original, release, RestrictivePatterns.load(path), psi))
    # an empty transaction may stay empty; one that had items may not become so
    emptied = [i for i, row in enumerate(rows) if row and not released[i]]
    expected = 0
    for pattern in unique:
        sensitive = [i for i, row in enumerate(rows) if pattern <= set(row)]
        still = [i for i in sensitive if pattern <= set(released[i])]
        expected += len(still) > Fraction(repr(float(psi))) * len(sensitive)
    assert [v.rule for v in found] == ["emptied"] * bool(emptied) + ["disclosed"] * expected
    if emptied:
        assert found[0].transaction == emptied[0] and found[0].summary.startswith(
            "1 transaction with items was" if len(emptied) == 1 else f"{len(emptied)} transactions with items were")


def test_psi_is_the_decimal_typed(tmp_path):
    # Regression (QA): ⌊ψ·m + 1e-9⌋ let ψ = 0.9999999999 keep a pattern in all 10 of its
    # transactions (10 > 9.999999999); ψ = 0.3 must still allow 3 of 10 (0.3·10 is 2.9999... in binary).
    path = write_patterns(tmp_path / "p.txt", "a b")
    original = Window.from_transactions([["a", "b"]] * 10)
    for psi, allowed in ((0.9999999999, 9), (0.3, 3), (0.1, 1), (1.0, 10)):
        for kept in (allowed, allowed + 1):
            release = Window.from_transactions([["a", "b"]] * kept + [["a"]] * (10 - kept), vocab=original.vocab)
            found = list(sanitize_violations(original, release, RestrictivePatterns.load(path), psi))
            assert bool(found) == (kept > allowed), (psi, kept)


def _brute_force(rows, released, release_vocab, unique, lines, psi):
    """Every violation the checker must name, from the definitions, transaction by transaction."""
    out = []
    added = [[label for label in new if label not in old] for old, new in zip(rows, released)]
    if any(added):
        first = next(i for i, labels in enumerate(added) if labels)
        # the first added occurrence of that transaction in id order: the input's labels keep
        # their ids, labels only the release holds follow in the release's order
        shown = min(added[first], key=release_vocab.get)
        count = sum(map(len, added))
        said = "1 released occurrence is" if count == 1 else f"{count} released occurrences are"
        out.append(("added-item", f"{said} not in the original "
                    "transaction at the same position (a release keeps the window's order)", (shown,), first))
    emptied = [i for i, row in enumerate(rows) if row and not released[i]]
    if emptied:
        said = "1 transaction with items was" if len(emptied) == 1 else f"{len(emptied)} transactions with items were"
        out.append(("emptied", f"{said} released empty", (), emptied[0]))
    for pattern, line in zip(unique, lines):
        sensitive = [i for i, row in enumerate(rows) if pattern <= set(row)]
        still = [i for i in sensitive if pattern <= set(released[i])]
        if len(still) > Fraction(repr(float(psi))) * len(sensitive):
            out.append(("disclosed", f"restrictive pattern of line {line} is still held by {len(still)} of its "
                        f"{len(sensitive)} sensitive transactions, more than psi={repr(float(psi)).removesuffix('.0')}",
                        tuple(sorted(pattern)), None))
    return out


@settings(max_examples=150, deadline=None)
@example(rows=[["i0", "i1"], ["i0"]], patterns=[["i0", "i1"]], supersets=[], psi=1.0, kept_whole=0,
         added=[(1, "i1")], shared_vocabulary=True, seed=0, copies=1)  # an added item completes the pattern elsewhere
@given(
    rows=st.lists(st.lists(st.sampled_from(ALPHABET), unique=True, max_size=6), max_size=30),
    patterns=st.lists(st.lists(st.sampled_from(ALPHABET), unique=True, min_size=2, max_size=4), min_size=1, max_size=5),
    supersets=st.lists(st.sampled_from(ALPHABET + ["never"]), max_size=3),
    psi=st.sampled_from([0.0, 1.0, 0.3, 0.5, 2 / 3, 0.9999999999]),
    kept_whole=st.integers(-1, 4),
    added=st.lists(st.tuples(st.integers(0, 149), st.sampled_from(ALPHABET + ["new", "other"])), max_size=3),
    shared_vocabulary=st.booleans(),
    seed=st.integers(0, 1000),
    copies=st.integers(1, 5),
)
def test_every_violation_is_the_brute_force_definitions(tmp_path_factory, rows, patterns, supersets, psi,
                                                         kept_whole, added, shared_vocabulary, seed, copies):
    # The checker packs its own bitsets for all patterns at once (QA: it was slower than the
    # sanitizer); every violation, its text and where it points must stay what the definitions say.
    # Patterns of one small alphabet share items; the first pattern grown by one item is a superset
    # of a listed one, and "never" an item no transaction holds.
    unique = list(dict.fromkeys(frozenset(p) for p in patterns))
    unique += [s for s in dict.fromkeys(unique[0] | {extra} for extra in supersets) if s not in unique]
    path = write_patterns(tmp_path_factory.mktemp("p") / "p.txt", "", *(" ".join(sorted(p)) for p in unique))
    lines = list(range(2, 2 + len(unique)))
    rows = rows * copies  # up to 150 transactions: tidsets of several 64-bit words
    rng = np.random.default_rng(seed)
    whole = unique[kept_whole] if 0 <= kept_whole < len(unique) else frozenset()
    # every occurrence of one pattern's items kept, the rest thinned
    released = [[item for item in row if item in whole or rng.random() < 0.6] for row in rows]
    for position, label in added:
        if position < len(rows) and label not in released[position]:
            released[position].append(label)
    original = Window.from_transactions(rows)
    vocab = original.vocab if shared_vocabulary else original.vocab.copy()
    release = Window.from_transactions(released, vocab=vocab)
    found = [(v.rule, v.summary, v.itemset, v.transaction)
             for v in sanitize_violations(original, release, RestrictivePatterns.load(path), psi)]
    assert found == _brute_force(rows, released, release.vocab, unique, lines, psi)
