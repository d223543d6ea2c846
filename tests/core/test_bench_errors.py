"""What a benchmark's forked run (setveil.core.bench.in_child) raises in the benchmark's process
when the run raises: setveil's own error as it was raised, its class kept, so that a benchmark
tells a model's refusal from a run that crashed; any other error as a crash named by its class."""

import sys
import types

import pytest

from setveil.core.bench import RunCrashed, RunDied, in_child
from setveil.core.errors import Infeasible, ParameterError, SetveilError, WindowRejected
from setveil.core.mining import MiningTooLarge


def _raises(error: BaseException):
    def run():
        raise error

    return run


@pytest.mark.parametrize("error", [Infeasible("fewer than k=10 transactions"), MiningTooLarge(2e8, 10**6, 3),
                                   ParameterError("k", "too large")])
def test_setveils_own_error_reaches_the_benchmark_with_its_class_attributes_and_exit_status(error):
    # review: every error came back a plain SetveilError of its message, so a benchmark could not
    # catch a model's refusal (bench partition caught it inside the run instead)
    with pytest.raises(type(error)) as raised:
        in_child(_raises(error))
    assert str(raised.value) == str(error) and raised.value.exit_code == error.exit_code
    assert vars(raised.value) == vars(error)
    assert not isinstance(raised.value, (RunCrashed, RunDied))


def test_an_error_of_setveils_keeps_its_class_when_an_attribute_of_it_cannot_cross():
    class PluginsOwn(Exception):  # a local class: pickle cannot name it
        pass

    error = WindowRejected("model error: it erred", cause=PluginsOwn("secret label HIV"))
    with pytest.raises(WindowRejected, match="^model error: it erred$") as raised:
        in_child(_raises(error))
    assert raised.value.reason == "model error: it erred" and raised.value.exit_code == 1


def test_any_other_error_is_a_crash_named_by_its_class_alone():
    # its message may quote the data, as a traceback of plugin code would
    with pytest.raises(RunCrashed) as raised:
        in_child(_raises(ValueError("secret label HIV")))
    crash = raised.value
    assert isinstance(crash, SetveilError) and crash.exit_code == 1 and crash.kind == "ValueError"
    assert "ValueError" in str(crash) and "HIV" not in str(crash)
    assert not isinstance(crash, (Infeasible, RunDied))


def _raises_a_class_of_the_runs_own_module():
    # a module the run made (or imported from where only it could): this process has no such
    # module to unpickle the error's class from, where the run's own pickle check found it
    module = types.ModuleType("made_in_the_run")
    sys.modules[module.__name__] = module

    class Refused(SetveilError):
        exit_code = 3

    Refused.__module__, Refused.__qualname__ = module.__name__, "Refused"
    module.Refused = Refused
    raise Refused("refused in the run")


def test_an_error_this_process_cannot_unpickle_is_setveils_with_its_message_and_exit_status():
    # review: the benchmark got ModuleNotFoundError from the pipe, not a SetveilError
    assert "made_in_the_run" not in sys.modules
    with pytest.raises(SetveilError, match="^refused in the run$") as raised:
        in_child(_raises_a_class_of_the_runs_own_module)
    assert raised.value.exit_code == 3 and not isinstance(raised.value, (RunCrashed, RunDied))


@pytest.mark.parametrize("error", [SystemExit(0), SystemExit("secret label HIV"), KeyboardInterrupt()],
                         ids=["exit-0", "exit-message", "keyboard-interrupt"])
def test_an_exit_or_interrupt_the_run_raises_is_a_crash_named_by_its_class_with_nothing_printed(error, capfd):
    # review: SystemExit(0) came back as "the run's process died (exit status 0)", and
    # multiprocessing printed a KeyboardInterrupt's traceback, or a SystemExit's message, which
    # may quote the data, on the benchmark's standard error
    with pytest.raises(RunCrashed) as raised:
        in_child(_raises(error))
    assert raised.value.kind == type(error).__name__ and "HIV" not in str(raised.value)
    assert capfd.readouterr().err == ""


class _CountsItsPickles(SetveilError):
    """An error that notes in the file ``args[0]`` names each time it is pickled."""

    def __reduce__(self) -> tuple:
        with open(self.args[0], "a") as notes:
            notes.write("pickled\n")
        return super().__reduce__()


def test_the_runs_error_is_pickled_once_on_its_way_to_the_benchmark(tmp_path):
    # review: the run pickled it, unpickled it to see that it crosses, then pickled it again to
    # send it; the benchmark's process unpickles it, and falls back to its message where it cannot
    notes = tmp_path / "pickles.txt"
    with pytest.raises(_CountsItsPickles):
        in_child(_raises(_CountsItsPickles(str(notes))))
    assert notes.read_text().splitlines() == ["pickled"]


def test_an_error_of_a_class_pickle_cannot_name_is_setveils_with_its_message_and_exit_status():
    class Refused(SetveilError):  # a local class: pickle cannot name it
        exit_code = 4

    with pytest.raises(SetveilError, match="^refused locally$") as raised:
        in_child(_raises(Refused("refused locally")))
    assert raised.value.exit_code == 4 and not isinstance(raised.value, (Refused, RunCrashed, RunDied))


class _Unsayable(SetveilError):
    """A plugin's error whose message cannot be made."""

    def __str__(self) -> str:
        raise ValueError("secret label HIV")


def test_an_error_of_setveils_whose_message_cannot_be_made_is_a_crash_named_by_its_class(capfd):
    # review: the run's process printed the traceback of its __str__ and the benchmark reported
    # "the run's process died (exit status 1)"
    with pytest.raises(RunCrashed) as raised:
        in_child(_raises(_Unsayable()))
    assert raised.value.kind == "_Unsayable" and capfd.readouterr().err == ""
