"""setveil's errors cross process boundaries whole: rho's parts and the audit's timed solve run in
worker processes, whose exceptions reach the parent pickled."""

import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from setveil.core.errors import (Infeasible, InputError, ParameterError, PluginError, WindowRejected, also_lines, counted,
                                 wrote_read_only)
from setveil.core.mining import MiningTooLarge
from setveil.core.window import DuplicateItem
from setveil.streams.codec import MessageRejected


def fails(error: Exception) -> None:
    raise error


ERRORS = [
    InputError("data.dat", "an item is empty", line=3),
    InputError(None, "no transactions"),
    ParameterError("rho", "got 2, allowed: 0 < rho < 1"),
    Infeasible("fewer than k transactions"),
    PluginError("plugin 'x' cannot be imported"),
    WindowRejected("model error: Halt"),
    MiningTooLarge(1.5e9, 25_000_000, 2, "rules"),
    DuplicateItem(7),
    MessageRejected("invalid", "'items' repeats an item"),
]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_an_error_survives_pickling(error):
    # Regression (QA): InputError, ParameterError, MiningTooLarge and MessageRejected could be
    # pickled but not unpickled (their __init__ takes more than the message), and DuplicateItem came
    # back with its message for a position, so a worker process's error broke its pool instead
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error) and vars(back) == vars(error)


class OwnError(ParameterError):
    """A plugin's error with an __init__ of its own."""

    def __init__(self, problem: str):
        super().__init__("m", problem)


def test_a_subclass_its_notes_and_its_attributes_survive_pickling():
    # QA re-check: pickled by their base class's arguments, a subclass with its own __init__ no
    # longer unpickled, and notes and attributes added later were lost
    error = OwnError("too large")
    error.add_note("seen in window 3")
    error.window = 3
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is OwnError and str(back) == str(error) and vars(back) == vars(error)
    assert back.__notes__ == ["seen in window 3"] and back.window == 3


def test_a_pool_process_error_reaches_the_parent_as_itself():
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(InputError) as raised:
            pool.submit(fails, InputError("data.dat", "an item is empty", line=3)).result()
    assert (raised.value.path, raised.value.line, raised.value.problem) == ("data.dat", 3, "an item is empty")


def test_an_input_error_names_its_file_and_line_or_the_input():
    assert str(InputError("data.dat", "an item is empty", line=3)) == "data.dat:3: an item is empty"
    assert str(InputError(None, "no transactions")) == "<input>: no transactions"


def test_only_numpys_read_only_messages_are_taken_for_a_write_into_a_given_window():
    assert wrote_read_only(ValueError("assignment destination is read-only"), "the checker") == (
        "ValueError: the checker wrote into a read-only array (the windows it is given are; compute on a copy)")
    assert wrote_read_only(ValueError("invalid literal for int() with base 10: 'HIV'")) is None


@pytest.mark.parametrize("number, verbs, said", [
    (0, None, "0 windows"), (1, None, "1 window"), (2, None, "2 windows"),
    (1, ("is", "are"), "1 window is"), (3, ("is", "are"), "3 windows are"), (0, ("has", "have"), "0 windows have"),
])
def test_a_count_reads_as_english_with_its_verb(number, verbs, said):
    assert counted(number, "window", verbs) == said


def test_the_other_lines_at_fault_read_as_english():
    assert (also_lines([3]), also_lines([3, 4]), also_lines([3, 4, 9])) == ("", " (also line 4)", " (also lines 4, 9)")
