"""Library use that reads a str as its characters, keeps numpy scalars as tids, takes offsets
that hold no window or leaves a pool's death unexplained (library walkthrough)."""

import json
import subprocess
import sys

import msgpack
import numpy as np
import pytest

from setveil import Hierarchy, Vocabulary, Window
from setveil.core.formats import read_window, write_window
from setveil.plugins.rho import dnc


def test_a_window_of_no_offsets_is_refused_naming_indptr():
    # taken, its len() raised "__len__() should return >= 0" wherever it was first asked
    with pytest.raises(ValueError) as refused:
        Window(Vocabulary(), [], [])
    assert str(refused.value) == ("Window's indptr is empty: it holds n+1 offsets for n transactions, so at least "
                                  "one offset, 0 (Window.empty() gives a window of no transactions)")
    with pytest.raises(ValueError, match="^Window's indptr is empty"):
        Window(Vocabulary(), np.zeros(0, np.int64), np.zeros(0, np.int32))


def test_the_one_offset_0_is_a_window_of_no_transactions():
    window = Window(Vocabulary(), [0], [])
    assert len(window) == 0 and list(window) == [] and len(Window.empty()) == 0


@pytest.mark.parametrize("fmt", ["jsonl", "msgpack"])
def test_a_window_over_numpy_tids_is_written_as_jsonl_and_msgpack(tmp_path, fmt):
    # np.int64 tids stayed numpy scalars in the window, and both writers raised TypeError
    out = tmp_path / f"release.{fmt}"
    window = Window.from_transactions([["a"], ["b", "c"], []], tids=np.arange(10, 13))
    write_window(window, out)
    if fmt == "jsonl":
        records = [json.loads(line) for line in out.read_text().splitlines()]
    else:
        records = list(msgpack.Unpacker(out.open("rb")))
    assert records == [{"tid": 10, "items": ["a"]}, {"tid": 11, "items": ["b", "c"]}, {"tid": 12, "items": []}]
    assert read_window(out).tids == [10, 11, 12]


@pytest.mark.parametrize("given, kept", [
    (np.arange(3), [0, 1, 2]),
    (np.arange(3, dtype=np.uint8), [0, 1, 2]),
    (np.array(["x", "y", "z"]), ["x", "y", "z"]),
    ([np.int32(7), "7", np.str_("s")], [7, "7", "s"]),
    (range(3), [0, 1, 2]),
])
def test_tids_are_kept_as_plain_int_and_str_however_given(given, kept):
    for window in (Window.from_transactions([["a"]] * 3, tids=given),
                   Window(Vocabulary(["a"]), [0, 1, 2, 3], [0, 0, 0], given),
                   Window.from_transactions([["a"]] * 3).with_tids(given)):
        assert window.tids == kept
        assert [type(tid) for tid in window.tids] == [type(tid) for tid in kept]
        assert [type(window.tid(p)) for p in range(3)] == [type(tid) for tid in kept]


@pytest.mark.parametrize("given, named", [
    ([0, 1.0], "a float (the first at position 1)"),
    (np.array([0.0, 1.0]), "a float (the first at position 0)"),
    ([0, True], "a bool (the first at position 1)"),
    (np.array([True, False]), "a bool (the first at position 0)"),
    ([None, 1], "a NoneType (the first at position 0)"),
    ([b"t0", b"t1"], "a bytes (the first at position 0)"),
])
def test_a_tid_neither_str_nor_int_is_refused_by_its_type_and_position(given, named):
    with pytest.raises(TypeError) as refused:
        Window.from_transactions([["a"], ["b"]], tids=given)
    assert str(refused.value) == f"Window's tids hold {named}; a tid is a str or an int"


@pytest.mark.parametrize("transactions, refused", [
    # "ab" was the transaction of items a and b
    (["ab"], "Window.from_transactions: transaction 0 is one str; give its items as a collection of str labels"),
    ([["a"], b"ab"], "Window.from_transactions: transaction 1 is one bytes; give its items as a collection of str "
                     "labels"),
    ([["a"], ["b"], 7], "Window.from_transactions: transaction 2 is an int; give its items as a collection of str "
                        "labels"),
    # each character a transaction of one item
    ("ab", "Window.from_transactions: transactions is one str; give a collection of transactions, each a "
           "collection of str labels"),
])
def test_from_transactions_refuses_one_str_for_a_transaction_or_for_all(transactions, refused):
    with pytest.raises(TypeError) as raised:
        Window.from_transactions(transactions)
    assert str(raised.value) == refused


@pytest.mark.parametrize("call, refused", [
    # ids("hiv") looked up 'h', 'i' and 'v', not 'hiv'
    (lambda vocab: vocab.ids("hiv"), "Vocabulary.ids: labels is one str"),
    (lambda vocab: vocab.ids(b"hiv"), "Vocabulary.ids: labels is one bytes"),
    (lambda vocab: vocab.mask("hiv"), "Vocabulary.mask: labels is one str"),
    (lambda vocab: vocab.ids(3), "Vocabulary.ids: labels is an int"),
    (lambda vocab: Vocabulary("hiv"), "Vocabulary: labels is one str"),
    # a tree over the leaves 'a', 'b' and 'c'
    (lambda vocab: Hierarchy.balanced("abc", 2), "Hierarchy.balanced: labels is one str"),
    (lambda vocab: Hierarchy.balanced(np.str_("abc"), 2), "Hierarchy.balanced: labels is one str_"),
])
def test_one_str_for_a_collection_of_labels_is_refused_by_its_type(call, refused):
    with pytest.raises(TypeError) as raised:
        call(Vocabulary(["hiv", "h", "i", "v"]))
    assert str(raised.value) == f"{refused}; give the labels as a collection of str"


def test_collections_of_labels_are_taken_as_before():
    vocab = Vocabulary(["hiv", "flu"])
    assert vocab.ids(["hiv", "cold"]).tolist() == [0, -1]
    assert vocab.ids(label for label in ("flu",)).tolist() == [1]
    assert vocab.ids(np.array(["flu", "hiv"])).tolist() == [1, 0]
    assert vocab.mask({"flu"}).tolist() == [False, True]
    assert Vocabulary(("a", "b")).labels == ("a", "b")
    assert Hierarchy.balanced(["a", "b", "c"], 2).labels == ["a..c", "a..b", "a", "b", "c"]
    assert list(Window.from_transactions([["ab"], ("c", "d"), {"e"}, []])) == [["ab"], ["c", "d"], ["e"], []]


SCRIPT = """
import threading
import numpy as np
from setveil import Context, ItemSchema, Window
from setveil.core.plugins import get_registry

# a thread running as the pool starts makes it start its processes by forkserver, as any thread
# the caller runs does (a library's, say)
threading.Thread(target=threading.Event().wait, args=(60,), daemon=True).start()
rows = [[f"i{(t * 7 + j * 3) % 40}" for j in range(8)] for t in range(400)]
configured = get_registry().configure("rho", "mine", {"rho": "0.7", "workers": "2", "t_max": "5"},
                                      Context(schema=ItemSchema(private={"i1", "i2", "i3"})))
"""
RUN = """window, rng = Window.from_transactions(rows), np.random.default_rng(0)
release = configured.model.anonymize(window, configured.policy, rng)
print("parts", release.stats["parts"], "workers", release.stats["workers"])
"""


def test_a_script_without_the_main_guard_is_named_when_its_pool_processes_fail(tmp_path):
    # each forkserver process imported the script again, ran rho there and failed to start a
    # pool of its own, and the window failed as a worker 'died abruptly (the kernel's OOM killer, say)'
    unguarded, guarded = tmp_path / "unguarded.py", tmp_path / "guarded.py"
    unguarded.write_text(SCRIPT + RUN)
    guarded.write_text(SCRIPT + 'if __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in RUN.splitlines()))
    failed = subprocess.run([sys.executable, str(unguarded)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    # a line of its own: the resource tracker may warn after the traceback of what the failed pools held
    if sys.version_info >= (3, 14):
        # the forkserver imports the script itself, and ended: the pool's start was a ConnectionResetError
        said = ("the forkserver that starts the divide-and-conquer worker processes ended before it started one: it "
                "imports the main script again (from Python 3.14; before, each worker does), and a script that runs "
                'the model without an `if __name__ == "__main__":` guard runs it there again and fails (its error is '
                "on standard error; docs/rho.md, workers)")
    else:
        said = ("a divide-and-conquer worker process exited with status 1 before doing its part: under the forkserver "
                "start method each worker imports the main script again, and a script that runs the model without "
                'an `if __name__ == "__main__":` guard runs it there again and fails (its error is on standard error; '
                "docs/rho.md, workers)")
    assert "setveil.core.errors.WorkerDied: " + said in failed.stderr.splitlines()
    ran = subprocess.run([sys.executable, str(guarded)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    parts = int(ran.stdout.split()[1])
    assert parts > 1 and ran.stdout == f"parts {parts} workers 2\n"


OOM = "a divide-and-conquer worker process died abruptly (the kernel's OOM killer, say)"


@pytest.mark.parametrize("method, statuses, named", [
    ("forkserver", [1, -15], "status 1"),
    ("spawn", [None, 1], "status 1"),
    # killed by a signal (the OOM killer's SIGKILL), the others terminated and killed by the pool
    ("forkserver", [-9, -15], OOM),
    ("forkserver", [-9, -9], OOM),
    # fork imports no script: a status of its own there is no sign of a missing guard
    ("fork", [-9, 1], OOM),
    ("fork", [1, 1], OOM),
])
def test_a_pool_death_is_told_by_the_start_method_and_the_exit_statuses(method, statuses, named):
    told = dnc._death(method, statuses)
    assert told == OOM if named == OOM else told.startswith(f"a divide-and-conquer worker process exited with {named} "
                                                             f"before doing its part: under the {method} start method")
