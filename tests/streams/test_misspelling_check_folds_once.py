"""A worker whose model has both a sensitive and a public list folds each window's labels once for
both lists' misspelling checks, where each list's check folded them again; what the check finds is
the same."""

import cProfile
import pstats

from hypothesis import given
from hypothesis import strategies as st

from setveil.core.labeltext import label_folds
from setveil.core.schema import misspelt_lines
from setveil.core.vocabulary import Vocabulary

from .test_processor import cut_of, worker_for

LABELS = st.sampled_from(["a", "b", "HIV", "hiv", "New York", "New  York", "İstanbul", "istanbul", "cafe\u0301",
                          "café", "flu\u200b", "flu", "ＨＩＶ"])


def _label_folds_calls(worker, rows) -> tuple[int, object]:
    profile = cProfile.Profile()
    profile.enable()
    outcome = worker.process("in", 0, cut_of(rows))
    profile.disable()
    calls = {function: stats[1] for (_, _, function), stats in pstats.Stats(profile).stats.items()}
    return calls.get(label_folds.__name__, 0), outcome


def test_a_window_is_folded_once_for_both_lists(tmp_path):
    sensitive, public = tmp_path / "sensitive.txt", tmp_path / "public.txt"
    sensitive.write_text("flu\nHIV\n", encoding="utf-8")
    public.write_text("a\nb\nc\n", encoding="utf-8")
    worker = worker_for("coherence", None, ["h=0.8", "k=2", "p=2"], sensitive, public)
    rows = [["a", "b", "HIV"], ["a", "b", "flu"], ["a", "c"], ["b", "c", "HIV"]] * 5
    calls, outcome = _label_folds_calls(worker, rows)
    assert outcome.emitted, outcome.reason
    assert calls == 1  # 2 before, one per list


def test_the_public_lists_misspelling_is_found_with_the_fold_made_once(tmp_path):
    sensitive, public = tmp_path / "sensitive.txt", tmp_path / "public.txt"
    sensitive.write_text("flu\n", encoding="utf-8")
    public.write_text("a\nb\nhiv\n", encoding="utf-8")
    worker = worker_for("coherence", None, ["h=0.4", "k=2", "p=2"], sensitive, public)
    calls, outcome = _label_folds_calls(worker, [["a", "b", "HIV"], ["a", "b", "flu"], ["a", "HIV"], ["b", "HIV"]] * 5)
    assert not outcome.emitted and outcome.cause == "error"
    assert "model.public names at line 3 an item this window spells otherwise" in outcome.reason
    assert calls == 1


def test_a_sensitive_list_alone_is_folded_once(tmp_path):
    sensitive = tmp_path / "sensitive.txt"
    sensitive.write_text("flu\nHIV\n", encoding="utf-8")
    rows = [["a", "b", "HIV"], ["a", "b", "flu"], ["a", "c"], ["b", "c", "HIV"]] * 5
    calls, outcome = _label_folds_calls(worker_for("rho", "mine", ["rho=0.5", "workers=1"], sensitive), rows)
    assert outcome.emitted, outcome.reason
    assert calls == 1


@given(st.frozensets(LABELS, max_size=5), st.frozensets(LABELS, max_size=5), st.lists(LABELS, unique=True, max_size=9))
def test_the_lines_found_with_the_window_folded_once_are_those_found_without(private, public, held):
    public -= private
    vocab = Vocabulary(held)
    listed = private | public
    folds = label_folds(vocab.labels)
    for labels in (private, public):
        lines = {label: number for number, label in enumerate(sorted(labels), 1)}
        assert misspelt_lines(labels, lines, vocab, listed, folds) == misspelt_lines(labels, lines, vocab, listed)
