"""A notebook user's vocabulary: labels from numpy arrays are plain str labels, and a label that
is not a str is refused when it is given, by its type."""

import numpy as np
import pytest

from setveil import Context, Vocabulary, Window
from setveil.core.engine import Pipeline
from setveil.core.plugins import get_plugin_manager, get_registry


def test_a_window_over_numpy_labels_is_anonymized():
    # before: every run raised ContractError 'the release's vocabulary holds a label that is not a
    # str, or one label twice', of the caller's own input window
    vocab = Vocabulary(np.unique(np.array(["c", "a", "b", "a"])))
    assert vocab.labels == ("a", "b", "c") and {type(label) for label in vocab.labels} == {str}
    window = Window(vocab, [0, 2, 3, 5, 6], [0, 1, 2, 0, 2, 1])
    configured = get_registry().configure("kanonymity", None, {"k": "2"}, Context(fanout=2))
    outcome = Pipeline(configured, get_plugin_manager()).run(window, np.random.default_rng(0))
    assert outcome.report["verified"] and len(outcome.release.window) == 4
    assert list(window) == [["a", "b"], ["c"], ["a", "c"], ["b"]]


def test_interning_a_numpy_label_adds_the_plain_str_and_finds_it_again():
    vocab = Vocabulary(["a"])
    assert vocab.intern(np.str_("b")) == 1 and type(vocab.labels[1]) is str
    assert vocab.intern("b") == 1 and vocab.intern(np.str_("a")) == 0
    assert list(Window.from_transactions([[np.str_("b")]], vocab=vocab)) == [["b"]]


@pytest.mark.parametrize(("labels", "kind"), [([1, 2], "an int"), (["a", None], "a NoneType"), ([b"a"], "a bytes"),
                                              (np.array([1, 2]), "an int64")])
def test_labels_that_are_not_str_are_refused_by_their_type(labels, kind):
    with pytest.raises(TypeError) as refused:
        Vocabulary(labels)
    assert str(refused.value) == f"a Vocabulary's labels are str; got {kind}"


def test_interning_a_label_that_is_not_a_str_is_refused():
    vocab = Vocabulary(["a"])
    with pytest.raises(TypeError, match=r"^a Vocabulary's labels are str; got an int$"):
        vocab.intern(5)
    assert len(vocab) == 1
