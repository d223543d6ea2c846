"""One transaction per subject (core/subjects.py): the merge the service's window.merge_subjects
and `anonymize --merge-subjects` share, worked by hand."""

from setveil.core.subjects import merge_records, merge_window
from setveil.core.window import Window

# tid, items, subject: "u" has three records, "v" one, 7 and "7" are two subjects, tid 2 has none
RECORDS = [(1, ["a", "b"], "u"), (2, ["c"], None), (3, ["b", "d"], "u"), (4, ["e"], "v"),
           (5, ["d", "a", "f"], "u"), (6, ["g"], 7), (7, ["h"], "7")]


def test_a_subjects_records_become_one_transaction_where_its_first_record_is():
    transactions, fields = merge_records(RECORDS)
    # the union of u's items, each once, in order of first appearance (b and d come twice, a too)
    assert transactions == [["a", "b", "d", "f"], ["c"], ["e"], ["g"], ["h"]]
    assert fields == [{"tid": 1, "tids": [1, 3, 5]}, {"tid": 2}, {"tid": 4, "tids": [4]}, {"tid": 6, "tids": [6]},
                      {"tid": 7, "tids": [7]}]


def test_a_files_window_merges_over_its_own_vocabulary():
    window = Window.from_transactions([items for _, items, _ in RECORDS], tids=[tid for tid, _, _ in RECORDS])
    merged, tids = merge_window(window, [subject for _, _, subject in RECORDS])
    assert merged.vocab is window.vocab and len(window.vocab) == 8
    assert list(merged) == [["a", "b", "d", "f"], ["c"], ["e"], ["g"], ["h"]]
    assert merged.tids == [1, 2, 4, 6, 7]
    assert tids == [[1, 3, 5], None, [4], [6], [7]]
