"""The core's structural check of a release, which runs before any model's own."""

import numpy as np
import pytest

from setveil.core.model import Context, PrivacyModel, Release, Transformation, Violation
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.core.verify import added_occurrences, malformed_violation, release_violations, removed_occurrences
from setveil.core.window import Window

ORIGINAL = [["a", "s"], ["a"], ["c"], ["d"]]


def rho_model():
    context = Context(schema=ItemSchema(private=frozenset({"s"})))
    return get_registry().configure("rho", "mine", {"rho": "0.4", "qid_size": "1"}, context).model


def built(original: Window, rows: list[list[int]]) -> Window:
    """A release a plugin could build from arrays, bypassing the parsers' checks."""
    indptr = np.cumsum([0] + [len(row) for row in rows])
    return Window(original.vocab, indptr, np.array([i for row in rows for i in row], dtype=np.int32))


class Trusting(PrivacyModel):
    """A third party's suppressing model whose checker forgot the structural checks: it finds nothing."""

    name = "trusting"
    summary = "releases its window as it is"
    guarantee = "nothing"
    transformation = Transformation.GLOBAL_SUPPRESSION

    def anonymize(self, window, policy, rng):
        return Release(window)

    def violations(self, original, release):
        return []


def test_the_core_checks_the_structure_of_a_release_whatever_the_models_checker_forgets():
    # Mutation pass: the core's own added-item check, or its malformed check, dropped from
    # release_violations passed every test, as every model shipped checks both itself; the core
    # checks them "so that no plugin's checker can forget them"
    original = Window.from_transactions(ORIGINAL)
    a, s, c, d = (original.vocab.get(label) for label in "ascd")
    model = Trusting({}, Context())
    assert list(release_violations(model, original, original, model.context)) == []
    found = release_violations(model, original, built(original, [[a, s], sorted([a, d]), [c], [d]]), model.context)
    assert [(v.rule, v.itemset, v.transaction) for v in found] == [("added-item", ("d",), 1)]
    found = release_violations(model, original, built(original, [[a, s], [a, a], [c], [d]]), model.context)
    assert [(v.rule, v.transaction) for v in found] == [("malformed", 1)]
    found = release_violations(model, original, built(original, [[a, s], [a], [c]]), model.context)
    assert [v.rule for v in found] == ["shape"]


def test_an_item_listed_twice_is_refused_before_the_model_counts_it():
    # Regression (review): a repeated item counted twice in every support, so the rho checker
    # passed an unsafe release: conf(a -> s) is 1/2 > 0.4, but [a, a, a] made it 1/4.
    original = Window.from_transactions(ORIGINAL)
    a, s, c, d = (original.vocab.get(label) for label in "ascd")
    model = rho_model()
    assert [v.rule for v in release_violations(model, original, original, model.context)] == ["rho"]
    release = built(original, [[a, s], [a, a, a], [c], [d]])
    found = list(release_violations(model, original, release, model.context))
    assert [(v.rule, v.transaction) for v in found] == [("malformed", 1)]
    assert [v.rule for v in rho_model().violations(original, release)] == ["malformed"]


@pytest.mark.parametrize(
    "rows, transaction",
    # an empty first transaction too: its offset 0 is no boundary between two ids (mutation pass:
    # taken for one, it hid the last transaction's repeated item)
    [([[1, 0], [], [2]], 0), ([[0], [], [2, 2]], 2), ([[0, 1], [1, 0]], 1), ([[], [0], [2, 2]], 2)],
)
def test_items_out_of_order_or_repeated_name_their_transaction(rows, transaction):
    original = Window.from_transactions([["a", "b", "c"]] * len(rows))
    problem = malformed_violation(built(original, rows))
    assert problem is not None and problem.rule == "malformed" and problem.transaction == transaction


def test_ids_outside_the_vocabulary_and_bad_offsets_are_malformed():
    original = Window.from_transactions([["a"], ["b"]])
    assert malformed_violation(built(original, [[0], [7]])).summary.endswith("outside its vocabulary")
    broken = Window(original.vocab, np.array([0, 2, 1]), np.array([0, 1], dtype=np.int32))
    assert "offsets" in malformed_violation(broken).summary


def test_well_formed_windows_pass_empty_transactions_included():
    window = Window.from_transactions([["b", "a"], [], ["c"], [], []])
    assert malformed_violation(window) is None
    assert malformed_violation(Window.empty()) is None
    assert malformed_violation(built(window, [[], [], [], [], []])) is None


def test_a_violation_built_from_a_list_and_a_numpy_position_holds_a_tuple_and_an_int():
    # what its annotation takes (QA of the typed API): it stays hashable and reports as JSON does
    found = Violation("too-long", "a transaction holds too many items", ["a", "b"], np.flatnonzero([0, 1])[0])
    assert found.itemset == ("a", "b") and type(found.transaction) is int and hash(found) == hash(
        Violation("too-long", "a transaction holds too many items", ("a", "b"), 1))


def test_a_violation_is_described_with_its_itemset_target_and_transaction():
    # The mutation pass: `setveil verify` shows the user these, and dropping the target or the
    # transaction from the line went unnoticed
    assert Violation("rule", "a share above h", ["a", "b"], np.int64(3), "c").describe() == (
        "rule: a share above h; itemset {a, b} -> c; transaction 3")
    assert Violation("rule", "too rare").describe() == "rule: too rare"
    # a rule with nothing before its arrow keeps its target (the mutation pass: none was tested)
    assert Violation("rule", "too frequent", target="c").describe() == "rule: too frequent; itemset {} -> c"


@pytest.mark.parametrize("indptr, ids", [
    ([], []),  # not even the offset of the first transaction
    ([0, 2, 1, 2], [0, 1]),  # an offset going back: transaction 1 would run backwards
    ([1, 2], [0, 1]),  # item 0 would belong to no transaction
    ([0, 1], [0, 1]),  # nor item 1, past the last offset (mutation pass: that comparison dropped survived)
])
def test_offsets_that_do_not_cover_the_ids_in_order_are_malformed(indptr, ids):
    original = Window.from_transactions([["a", "b"]] * max(len(indptr) - 1, 0))
    # set after construction, as a plugin may: the constructor refuses the empty offsets, and the
    # check must not rely on it
    broken = Window.empty(original.vocab)
    broken.indptr, broken.indices = np.array(indptr, dtype=np.int64), np.array(ids, dtype=np.int32)
    assert "offsets" in malformed_violation(broken).summary


def test_the_first_id_past_the_vocabulary_is_outside_it():
    original = Window.from_transactions([["a"], ["b"]])
    assert malformed_violation(built(original, [[0], [2]])).summary.endswith("outside its vocabulary")
    # alone in the release too (mutation pass: ids checked only in releases of two occurrences or
    # more survived: the core then raised IndexError naming no rule, reading the label of id 2)
    assert malformed_violation(built(original, [[], [2]])).summary.endswith("outside its vocabulary")


def test_a_negative_id_is_outside_the_vocabulary():
    # -1 reads as the last label, b here, and its occurrence key is that of transaction 0's b: the
    # release [[a], [b, a]] of [[a, b], [a]] passed "nothing added" and a sanitize check of the
    # pattern a b at psi=0 (mutation pass: ids down to -1 taken as inside the vocabulary survived)
    original = Window.from_transactions([["a", "b"], ["a"]])
    assert malformed_violation(built(original, [[0], [-1, 0]])).summary.endswith("outside its vocabulary")


def test_added_and_removed_occurrences_are_counted_and_located():
    # against [[a, s], [a], [c], [d]], the release adds c to transaction 1 and d to 2, and
    # drops s (protected) from 0 and c (not protected) from 2
    original = Window.from_transactions(ORIGINAL)
    a, s, c, d = (original.vocab.get(label) for label in "ascd")
    release = built(original, [[a], sorted([a, c]), [d], [d]])
    [added] = added_occurrences(original, release)
    assert (added.summary.split()[0], added.itemset, added.transaction) == ("2", ("c",), 1)
    protected = np.zeros(len(original.vocab), dtype=bool)
    protected[s] = True
    [lost] = removed_occurrences(original, release, protected, "lost", "private items")
    assert (lost.summary, lost.itemset, lost.transaction) == ("1 occurrence of private items was removed", ("s",), 0)
    assert list(removed_occurrences(original, original, ~protected, "lost", "public items")) == []


def test_every_added_or_removed_occurrence_is_found_whatever_its_item_and_transaction():
    # Mutation pass: a removed occurrence named in the window's first transaction, wherever it
    # was lost, passed every test (the one lost occurrence tested was in transaction 0), and
    # occurrence keys spaced by one id too few (the last id of a transaction then shares its key
    # with the next one's first) were caught by a sanitize test alone. Each single change of this
    # window, of every item at every position, is found and named where it was made
    original = Window.from_transactions([["a", "b"], ["a", "c"], ["b"], []])
    rows = [original.row(t).tolist() for t in range(len(original))]
    protected = np.ones(len(original.vocab), dtype=bool)
    for t, row in enumerate(rows):
        for item in range(len(original.vocab)):
            changed = [sorted(set(r) ^ {item}) if n == t else r for n, r in enumerate(rows)]
            release = built(original, changed)
            added = list(added_occurrences(original, release))
            lost = list(removed_occurrences(original, release, protected, "lost", "any items"))
            found = added or lost
            assert (bool(added), bool(lost)) == (item not in row, item in row)
            assert [(v.itemset, v.transaction) for v in found] == [((original.vocab.label(item),), t)]


def test_occurrences_added_to_a_window_of_empty_transactions_or_all_removed_are_found():
    # the side compared against holds no occurrence at all: an item added to an empty transaction,
    # or every occurrence removed, is a violation to name, not an index error
    empty = Window.from_transactions([["a"], []]).take([1])
    [added] = added_occurrences(empty, built(empty, [[empty.vocab.get("a")]]))
    assert (added.itemset, added.transaction) == (("a",), 0)
    original = Window.from_transactions([["a"]])
    protected = np.ones(len(original.vocab), dtype=bool)
    [lost] = removed_occurrences(original, built(original, [[]]), protected, "lost", "private items")
    assert (lost.summary, lost.itemset, lost.transaction) == ("1 occurrence of private items was removed", ("a",), 0)
