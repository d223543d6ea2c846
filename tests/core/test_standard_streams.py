"""Standard input and output as the console script meets them: full, closed, gone mid-write, or
open on a file the run also reads (regressions from a QA pass of the command line).

Each case runs ``python -m setveil`` in a process of its own, since what is tested is the process's
file descriptors 0 and 1."""

import json
import os
import select
import subprocess
import sys
import time

import pytest

K = ["-m", "kanonymity", "-P", "k=2", "--fanout", "2"]
SETVEIL = [sys.executable, "-m", "setveil"]


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("stdout", subprocess.PIPE)
    return subprocess.run([*SETVEIL, *map(str, args)], stderr=subprocess.PIPE, text=True, timeout=120, **kwargs)


def one_line_error(result: subprocess.CompletedProcess, *words: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("setveil: error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "d.dat"
    path.write_text("a b\na c\na b\n")
    return path


def test_a_reader_that_goes_away_mid_write_is_an_error_not_a_truncated_release(tmp_path):
    # QA: the write came back short at 64 KiB when the reader went, and the release ended there
    # with status 0
    big = tmp_path / "big.dat"
    big.write_text("a b\n" * 60_000)
    child = subprocess.Popen([*SETVEIL, "anonymize", str(big), "-o", "-", *K], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert len(child.stdout.read(1000)) == 1000
    child.stdout.close()
    _, err = child.communicate(timeout=120)
    assert child.returncode == 2 and err == "setveil: error: -: cannot write: Broken pipe\n"


def test_a_reader_of_both_streams_that_goes_away_leaves_the_documented_status(tmp_path):
    # QA: with stderr on the same pipe (`2>&1 | head`) the error line could not be written either,
    # and Python ended the command with status 1, which for verify says "fails"
    big = tmp_path / "big.dat"
    big.write_text("a b\n" * 60_000)
    read, write = os.pipe()
    child = subprocess.Popen([*SETVEIL, "anonymize", str(big), "-o", "-", *K], stdout=write, stderr=write)
    os.close(write)
    with os.fdopen(read, "rb") as reader:
        assert len(reader.read(1000)) == 1000
    assert child.wait(timeout=120) == 2


def test_a_standard_error_gone_silences_the_table_and_not_the_run(data):
    # `bench run --json -` writes its table to stderr: with no one to read it the JSON still comes
    child = subprocess.Popen([*SETVEIL, "bench", "run", str(data), *K, "--runs", "1", "--json", "-"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child.stderr.close()
    out = child.stdout.read()
    assert child.wait(timeout=120) == 0
    assert set(json.loads(out)) == {"machine", "seed", "rows", "summary"}
    # QA re-check: with standard error closed outright the table went to standard output first
    closed = subprocess.run([*SETVEIL, "bench", "run", str(data), *K, "--runs", "1", "--json", "-"],
                            stdout=subprocess.PIPE, text=True, timeout=120, preexec_fn=lambda: os.close(2))
    assert closed.returncode == 0 and set(json.loads(closed.stdout)) == {"machine", "seed", "rows", "summary"}


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full, a device whose writes fail")
@pytest.mark.parametrize("args", [["plugins"], ["plugins", "--json"], ["--help"], ["verify", "{data}", "{data}", *K],
                                  ["bench", "run", "{data}", *K, "--runs", "1"]])
def test_a_full_standard_output_is_one_line_and_status_2(data, args):
    # QA: click's echo raised OSError(ENOSPC) through every command that prints: a traceback
    with open("/dev/full", "w") as full:
        result = run(*(arg.format(data=data) for arg in args), stdout=full)
    one_line_error(result, "-: cannot write: No space left on device")


def test_verify_into_a_closed_pipe_is_not_a_failed_check(data):
    # QA: click ends a broken pipe with status 1 and no word, which for verify says "fails"
    child = subprocess.Popen([*SETVEIL, "verify", str(data), str(data), *K], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    child.stdout.close()
    _, err = child.communicate(timeout=120)
    assert child.returncode == 2 and err == "setveil: error: -: cannot write: Broken pipe\n"


def test_closed_standard_streams_are_named(data, tmp_path):
    # QA: `-o - >&-` and `- <&-` ended in AttributeError tracebacks (sys.stdout, sys.stdin are None)
    result = run("anonymize", data, "-o", "-", *K, stdout=None, preexec_fn=lambda: os.close(1))
    one_line_error(result, "-: cannot write: standard output is closed")
    result = run("anonymize", "-", "-o", tmp_path / "out.dat", *K, preexec_fn=lambda: os.close(0))
    one_line_error(result, "standard input: cannot read: it is closed")
    assert not (tmp_path / "out.dat").exists()


def test_standard_output_is_the_file_it_is_open_on(data, tmp_path):
    # QA: `-o - --report /dev/stdout > f` left the report alone in f, the release lost
    with open(tmp_path / "f", "w") as out:
        result = run("anonymize", data, "-o", "-", "--report", "/dev/stdout", *K, stdout=out)
    one_line_error(result, "parameter 'report': --output writes the same file")
    with open(tmp_path / "f", "w") as out:
        result = run("items", "split", data, "--public-share", "0.5", "--sensitive-out", "-",
                     "--public-out", "/dev/stdout", stdout=out)
    one_line_error(result, "parameter 'public-out': --sensitive-out writes the same file")
    assert (tmp_path / "f").read_text() == ""


def test_several_outputs_may_be_discarded(data):
    # QA as a CLI user: `-o /dev/null --report /dev/null` was refused as one file written twice
    assert run("anonymize", data, "-o", os.devnull, "--report", os.devnull, *K).returncode == 0
    with open(os.devnull, "w") as discard:
        assert run("anonymize", data, "-o", "-", "--report", os.devnull, *K, stdout=discard).returncode == 0


def test_an_input_on_a_standard_stream_is_not_overwritten(data, tmp_path):
    # QA: `- -o d.dat < d.dat` replaced the input with its release; `-o - >> d.dat` appended to it
    before = data.read_text()
    with open(data) as given:
        result = run("anonymize", "-", "-o", data, *K, stdin=given)
    one_line_error(result, "parameter 'output': ", "is also read by this run")
    with open(data, "a") as appended:
        result = run("anonymize", data, "-o", "-", *K, stdout=appended)
    one_line_error(result, "parameter 'output': standard output is also read by this run")
    assert data.read_text() == before
    with open(data) as given:  # stdin and stdout on one terminal or pipe are no file to destroy
        result = run("anonymize", "-", "-o", "-", *K, stdin=given)
    assert result.returncode == 0 and result.stdout.count("\n") == 3


def test_a_benchmark_printing_its_json_into_its_input_is_refused(data):
    # Regression (QA re-check): once standard output moved to standard error's descriptor, the
    # check looked at standard error, and `--json - >> in.dat` appended the rows to the input
    before = data.read_text()
    with open(data, "a") as appended:
        result = run("bench", "run", data, *K, "--runs", "1", "--json", "-", stdout=appended)
    one_line_error(result, "parameter 'json': standard output is also read by this run")
    assert data.read_text() == before


def test_a_benchmark_reading_standard_output_by_name_is_refused(data, tmp_path):
    # QA re-check: `--json -` moves standard output's descriptor as the option is parsed, and
    # /dev/stdout then named standard error's file, which the benchmark read as its input
    log = tmp_path / "log"
    log.write_text(data.read_text())
    with open(log, "a") as errors:
        result = subprocess.run([*SETVEIL, "bench", "run", "/dev/stdout", *K, "--runs", "1", "--json", "-"],
                                stdout=subprocess.PIPE, stderr=errors, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert log.read_text() == data.read_text() + ("setveil: error: parameter 'json': standard output is also read by "
                                                  "this run; give another path\n")


def test_standard_error_may_be_the_file_an_input_is_not(data, tmp_path):
    # ... and `-o - 2>> log` was refused as if standard output were the log
    log = tmp_path / "log"
    log.write_text("")
    with open(log, "a") as errors:
        result = subprocess.run([*SETVEIL, "anonymize", str(data), "-o", "-", *K], stdout=subprocess.PIPE,
                                stderr=errors, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.count("\n") == 3


@pytest.mark.parametrize("appended", ["data", "sensitive"])
def test_a_command_printing_into_a_file_it_reads_is_refused(tmp_path, appended):
    # QA as a CLI user: `verify in.dat in.dat ... >> in.dat` appended its violations to the
    # original (and `>> sensitive.txt` to the item list), to be read as data by the next run
    data, sensitive = tmp_path / "in.dat", tmp_path / "sensitive.txt"
    data.write_text("a c d f g Diabetes\na b c f Hepatitis\nb d f x Hepatitis\nb c g y z HIV\na c f g HIV\n")
    sensitive.write_text("Diabetes\nHepatitis\nHIV\n")
    target = {"data": data, "sensitive": sensitive}[appended]
    before = target.read_text()
    with open(target, "a") as out:
        result = run("verify", data, data, "-m", "coherence", "-P", "h=0.8", "-P", "k=2", "-P", "p=2",
                     "--sensitive", sensitive, stdout=out)
    one_line_error(result, f"{target}: is also standard output, which this run would write into")
    assert target.read_text() == before


@pytest.mark.parametrize("bench", [["sanitize", "speed", "{first}", "{second}", "-n", "2"],
                                   ["partition", "{first}", "{second}", "-k", "2", "--fanout", "4", "-m", "1"]])
def test_a_benchmark_of_several_inputs_refuses_before_printing_the_first(tmp_path, bench):
    # QA re-check: each input was checked as it was read, after the header or the rows of the
    # inputs before it had been appended to it
    first, second = tmp_path / "first.dat", tmp_path / "second.dat"
    for path in (first, second):
        path.write_text("a b c\na b\nb c\na c\n")
    with open(second, "a") as appended:
        result = run("bench", *(arg.format(first=first, second=second) for arg in bench), stdout=appended)
    one_line_error(result, f"{second}: is also standard output")
    assert second.read_text() == "a b c\na b\nb c\na c\n"


def test_standard_input_or_a_pipe_that_is_standard_output_is_not_read(data, tmp_path):
    # QA re-check: `verify - r.dat < in.dat >> in.dat` still appended to the original, and
    # `anonymize /dev/stdout ... | cat` read its own output pipe and waited for ever
    before = data.read_text()
    with open(data) as given, open(data, "a") as appended:
        result = run("verify", "-", data, *K, stdin=given, stdout=appended)
    one_line_error(result, "standard input: is also standard output")
    assert data.read_text() == before
    result = run("anonymize", "/dev/stdout", "-o", tmp_path / "o.dat", *K)  # stdout is the test's pipe
    one_line_error(result, "/dev/stdout: is also standard output")
    with open(data) as given, open(tmp_path / "log.txt", "w") as log:  # another file: read as ever
        assert run("anonymize", "-", "-o", tmp_path / "o.dat", *K, stdin=given, stdout=log).returncode == 0


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_json_to_standard_output_is_json_alone(data, name):
    # QA: `bench run --json -` printed its table first, so the output parsed as nothing; `--json
    # /dev/stdout` still did (mutation pass), though a name of standard output is written as - is
    result = run("bench", "run", data, *K, "--runs", "1", "--json", name)
    assert result.returncode == 0, result.stderr
    assert set(json.loads(result.stdout)) == {"machine", "seed", "rows", "summary"}
    assert "| run " in result.stderr


@pytest.mark.parametrize("source", ["-", "/dev/stdin"])
def test_data_typed_into_the_terminal_standard_output_is_on_is_read(tmp_path, source):
    # mutation pass: a terminal taken for a file to destroy (standard input and output on one
    # terminal) refused `anonymize - -o -` typed at a prompt, and no test ran on a terminal; named
    # /dev/stdin it is read by path, and the terminal is still typed into, not written back
    master, terminal = os.openpty()
    child = subprocess.Popen([*SETVEIL, "anonymize", source, "-o", "-", *K], stdin=terminal, stdout=terminal,
                             stderr=subprocess.PIPE, text=True)
    os.close(terminal)
    os.write(master, b"a b\na b\nc d\nc d\n\x04")  # four lines, then Ctrl-D
    shown = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # what the terminal shows: the lines typed, echoed, then the release
        if not select.select([master], [], [], 1)[0]:
            continue
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child has closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert child.wait(timeout=120) == 0, child.stderr.read()
    assert shown.decode().replace("\r\n", "\n").count("a b\n") == 4
