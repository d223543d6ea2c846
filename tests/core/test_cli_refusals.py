"""Regressions from a QA pass on the command line: what a message may say (positions, never
tids), which status it exits with, when it is given (before the data is read) and what the
report records (core/cli.py, core/output.py, core/labeltext.py)."""

import gzip
import json
import os

import pytest

from setveil import __version__

from .figure1 import FIGURE_1, MODEL, run


def test_a_rejected_window_is_named_by_positions_never_tids(files):
    # the message said "window 0 (transactions MRN-JohnSmith..MRN-JaneDoe) rejected"
    records = [{"tid": f"MRN-{name}", "items": ["a", "b"]} for name in ("Ann", "Bob", "Cy", "Di")]
    records += [{"tid": "MRN-JohnSmith", "items": ["a", "HIV"]}, {"tid": "MRN-JaneDoe", "items": ["a", "HIV"]}]
    data = files / "tid.jsonl"
    data.write_text("".join(json.dumps(record) + "\n" for record in records))
    out = files / "o.jsonl"
    result = run("anonymize", data, "-o", out, *MODEL, "--sensitive", files / "private.txt", "--window", "4")
    assert result.exit_code == 1 and "MRN" not in result.output and not out.exists()
    assert "setveil: error: window 1 (transactions 4..5) rejected, nothing written: infeasible" in result.output


def test_verify_names_a_violating_transaction_by_its_input_position(files):
    # with --window, the position was counted from the start of its window ("transaction 1" for 3)
    release = files / "r.dat"
    lines = FIGURE_1.splitlines()
    lines[3] += " w"  # an item the original's transaction 3 does not hold
    release.write_text("\n".join(lines) + "\n")
    for window in ([], ["--window", "2"]):
        result = run("verify", files / "fig1.dat", release, *MODEL, "--sensitive", files / "private.txt", *window)
        assert result.exit_code == 1 and "transaction 3" in result.output, window


@pytest.mark.parametrize("command", ["anonymize", "verify"])
@pytest.mark.parametrize("model, smallest", [(MODEL, 2), (["--model", "kanonymity", "-P", "k=3", "--fanout", "2"], 3)])
def test_a_window_smaller_than_the_model_needs_exits_2_before_reading(files, command, model, smallest):
    # --window 1 read the data and exited 1 ("fewer than k=2"); the input here does not even exist
    missing = files / "missing.dat"
    target = ["-o", files / "o.dat"] if command == "anonymize" else [files / "fig1.dat"]
    extra = ["--sensitive", files / "private.txt"] if model is MODEL else []
    result = run(command, missing, *target, *model, *extra, "--window", smallest - 1)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert (f"parameter 'window': --window {smallest - 1} is fewer than the {smallest} transactions" in result.output
            and f"allowed: an integer in [{smallest}, inf)" in result.output)
    result = run(command, files / "fig1.dat", *target, *model, *extra, "--window", smallest)
    assert "parameter 'window'" not in result.output


@pytest.mark.parametrize("output", ["o.dat", "o.jsonl", "o.msgpack"])
def test_a_hierarchy_node_labelled_with_a_nul_is_refused_before_anonymizing(tmp_path, output):
    # regression (QA, hostile input files): a quoted "\u0000" node went into a JSONL or msgpack
    # release, exit 0, which verify then refused ("item 0 holds a NUL"); FIMI was told to write JSONL
    data, tree, out = tmp_path / "d.dat", tmp_path / "h.csv", tmp_path / output
    data.write_text("a b\na c\nb c\n")
    tree.write_text("".join(f'{item},"SECRET\\u0000"\n' for item in "abc"))
    result = run("anonymize", data, "-o", out, "--model", "kanonymity", "-P", "k=3", "--hierarchy", tree)
    assert result.exit_code == 2 and not out.exists()
    assert result.output == (f"setveil: error: {tree}:1: a hierarchy node above the data's items has a label with a "
                             "NUL, which no transaction file may hold, so the release would not read back\n")


def test_a_hierarchy_node_with_whitespace_is_refused_before_anonymizing_for_a_fimi_output_alone(tmp_path):
    # FIMI splits a transaction at whitespace, while JSONL carries the label as it is
    data, tree = tmp_path / "d.dat", tmp_path / "h.csv"
    data.write_text("a b\na c\nb c\n")
    tree.write_text('a,x\nb,"Health Care"\nc,"Health Care"\nx,"Health Care"\n')
    model = ["--model", "kanonymity", "-P", "k=3", "--hierarchy", tree]
    result = run("anonymize", data, "-o", tmp_path / "o.dat", *model)
    assert result.exit_code == 2 and not (tmp_path / "o.dat").exists()
    assert result.output == (f"setveil: error: {tree}:2: a hierarchy node above the data's items has a label with "
                             f"whitespace, which the FIMI output {tmp_path / 'o.dat'} cannot carry: write JSONL or "
                             "msgpack (--output-format)\n")
    result = run("anonymize", data, "-o", tmp_path / "o.jsonl", *model)
    assert result.exit_code == 0 and "Health Care" in (tmp_path / "o.jsonl").read_text()


def test_a_release_that_does_not_pair_exits_2(files):
    short = files / "r2.dat"
    short.write_text("a c f g Diabetes\na c f Hepatitis\n")
    result = run("verify", files / "fig1.dat", short, *MODEL, "--sensitive", files / "private.txt")
    assert result.exit_code == 2 and result.output == f"setveil: error: {short}: 2 transactions, but {files / 'fig1.dat'} has 5\n"
    original, release = files / "a.jsonl", files / "b.jsonl"
    original.write_text('{"tid": "MRN-1", "items": ["a"]}\n{"tid": "MRN-2", "items": ["a"]}\n')
    release.write_text('{"tid": "MRN-1", "items": ["a"]}\n{"tid": "MRN-3", "items": ["a"]}\n')
    result = run("verify", original, release, "--model", "km-anonymity", "-P", "k=1", "-P", "m=1", "--fanout", "2")
    assert result.exit_code == 2 and "MRN" not in result.output
    assert result.output == f"setveil: error: {release}: transaction 1 has another tid than in {original}\n"


@pytest.mark.parametrize("release", ["missing.dat", "."], ids=["missing", "directory"])
def test_a_release_that_cannot_be_read_is_named_before_the_original_is_read(files, release):
    # Regression (QA): RELEASE was first opened once ORIGINAL had been read, so a typo in its name
    # was named after 9.1 s and 578 MB over 1,000,000 transactions; an original no reader gets
    # past shows which file was read first
    original = files / "bad.dat"
    original.write_bytes(b"a\nb \xff\n")
    path = files / release
    result = run("verify", original, path, *MODEL, "--sensitive", files / "private.txt")
    why = "No such file or directory" if release == "missing.dat" else "Is a directory"
    assert result.exit_code == 2 and result.output == f"setveil: error: {path}: cannot read: {why}\n"


def test_a_piped_release_is_read_once_after_the_original(files):
    # the check before the original is read must not open a pipe, whose writer it would cut off
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, (files / "fig1.dat").read_bytes())
        os.close(write_end)
        piped = f"/dev/fd/{read_end}"
        result = run("verify", files / "fig1.dat", piped, *MODEL, "--sensitive", files / "private.txt")
    finally:
        os.close(read_end)
    assert result.exit_code == 1 and result.output.endswith(f"{piped}: FAILS coherence: 8 violations\n")


def test_a_release_of_a_fimi_original_pairs_by_the_positions_as_tids(files):
    # a FIMI original has no tids, and a JSONL release's were not checked at all: "x", "y", "z"
    # passed, while the same release of a JSONL original without tids (given their positions) exited 2
    made = files / "made.jsonl"
    assert run("anonymize", files / "fig1.dat", "-o", made, *MODEL, "--sensitive", files / "private.txt").exit_code == 0
    result = run("verify", files / "fig1.dat", made, *MODEL, "--sensitive", files / "private.txt")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in made.read_text().splitlines()]
    for tids in (["x", "y", "z", "v", "w"], ["0", "1", "2", "3", "4"], [0, 1, 3, 2, 4]):
        release = files / "renamed.jsonl"
        release.write_text("".join(json.dumps({**record, "tid": tid}) + "\n" for record, tid in zip(records, tids)))
        result = run("verify", files / "fig1.dat", release, *MODEL, "--sensitive", files / "private.txt")
        assert result.exit_code == 2, tids
        position = next(i for i, tid in enumerate(tids) if tid != i)
        assert result.output == (f"setveil: error: {release}: transaction {position} has another tid than in "
                                 f"{files / 'fig1.dat'}\n")


@pytest.mark.parametrize("option", ["--sensitive", "--public", "--hierarchy"])
def test_label_files_are_not_read_from_stdin(files, option):
    # "--sensitive -" said "-: cannot read: No such file or directory"
    if option == "--hierarchy":
        args = ["--model", "kanonymity", "-P", "k=2", "--hierarchy", "-"]
    else:
        args = [*MODEL, "--sensitive", files / "private.txt", option, "-"] if option == "--public" else [*MODEL, option, "-"]
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *args, input="HIV\n")
    assert result.exit_code == 2
    assert result.output == (f"setveil: error: parameter '{option[2:]}': standard input ('-') is not supported for this "
                             "file; give a path\n")


def test_an_output_whose_stand_in_cannot_be_created_says_so(files, monkeypatch):
    # -o /proc/version said "cannot write: No such file or directory" of a file that exists
    import tempfile

    def refuse(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    out = files / "o.dat"
    out.write_text("old\n")
    result = run("anonymize", files / "fig1.dat", "-o", out, *MODEL, "--sensitive", files / "private.txt")
    assert result.exit_code == 2 and out.read_text() == "old\n"
    assert result.output == (f"setveil: error: {out}: cannot write: cannot create a temporary file in {files} to "
                             "replace it atomically: No such file or directory\n")


def test_the_report_says_what_was_run_on_what(files):
    report = files / "r.json"
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *MODEL, "--sensitive", files / "private.txt",
                 "--report", report)
    assert result.exit_code == 0
    body = json.loads(report.read_text())
    assert body["setveil_version"] == __version__
    assert body["files"] == {"input": str(files / "fig1.dat"), "output": str(files / "o.dat"),
                             "sensitive": str(files / "private.txt"), "public": None, "hierarchy": None}
    assert body["formats"] == {"input": "fimi", "output": "fimi"} and body["fanout"] is None
    # QA as a CLI user: a generated hierarchy's fan-out and the formats were not recorded
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.jsonl", "-m", "kanonymity", "-P", "k=2",
                 "--fanout", "3", "--report", report)
    assert result.exit_code == 0, result.output
    body = json.loads(report.read_text())
    assert body["formats"] == {"input": "fimi", "output": "jsonl"} and body["fanout"] == 3
    assert body["compression"] == {"input": None, "output": None}
    # QA: a gzipped input and output were reported as plain fimi; gzip data is known by its
    # bytes whatever its name (and on standard input), an output by its .gz name
    (files / "fig1.gz.dat").write_bytes(gzip.compress((files / "fig1.dat").read_bytes()))
    for source, stdin in ((files / "fig1.gz.dat", None), ("-", (files / "fig1.gz.dat").read_bytes())):
        result = run("anonymize", source, "-o", files / "o.DAT.GZ", "-m", "kanonymity", "-P", "k=2", "--fanout", "3",
                     "--report", report, input=stdin)
        assert result.exit_code == 0, result.output
        body = json.loads(report.read_text())
        assert body["formats"] == {"input": "fimi", "output": "fimi"}
        assert body["compression"] == {"input": "gzip", "output": "gzip"}
    # the release's own format and compression, whatever the input's
    result = run("anonymize", files / "fig1.gz.dat", "-o", files / "o.out", "--output-format", "jsonl",
                 "-m", "kanonymity", "-P", "k=2", "--fanout", "3", "--report", report)
    assert result.exit_code == 0, result.output
    body = json.loads(report.read_text())
    assert body["formats"] == {"input": "fimi", "output": "jsonl"}
    assert body["compression"] == {"input": "gzip", "output": None}


def test_serve_names_the_settings_of_a_model_set_up_by_settings(files, monkeypatch):
    # Regression (QA as a plugin author): with the model set by SETVEIL_MODEL_* a missing item file
    # or parameter was asked for by its command-line option only; and a hierarchy given to a model
    # that does not generalize was reported as missing
    monkeypatch.setenv("SETVEIL_KAFKA_BOOTSTRAP", "127.0.0.1:1")  # nothing listens there
    monkeypatch.setenv("SETVEIL_MODEL_NAME", "coherence")
    monkeypatch.setenv("SETVEIL_MODEL_PARAMS", "h=0.5")
    result = run("serve")
    assert result.exit_code == 2 and result.output == (
        "setveil: error: parameter 'k': model 'coherence' needs it (smallest cohort an attacker's knowledge may "
        "single out; allowed: an integer in [1, inf)): give -P k=VALUE or set model.params\n")
    monkeypatch.setenv("SETVEIL_MODEL_PARAMS", "h=0.5,k=2,p=2")
    result = run("serve")
    assert result.exit_code == 2 and result.output == (
        "setveil: error: parameter 'model.sensitive': model 'coherence' needs the sensitive (private) items: give "
        "--sensitive FILE or set model.sensitive\n")
    (files / "h.csv").write_text("a,A\n")
    monkeypatch.setenv("SETVEIL_MODEL_SENSITIVE", str(files / "private.txt"))
    monkeypatch.setenv("SETVEIL_MODEL_HIERARCHY", str(files / "h.csv"))
    result = run("serve")
    assert result.exit_code == 2 and "model 'coherence' does not generalize" in result.output


@pytest.mark.parametrize("option, value", [("--window", "٣"), ("--window", "1_0"), ("--seed", "３")])
def test_numbers_of_options_are_ascii_digits_as_those_of_parameters(files, option, value):
    # QA: -P k=١ was refused, yet --window ٣ ran with windows of 3 (click's int() reads any script)
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *MODEL, "--sensitive", files / "private.txt",
                 option, value)
    assert result.exit_code == 2 and not (files / "o.dat").exists()
    assert f"Invalid value for '{option}': '{value}' is not an integer written in ASCII digits" in result.output


@pytest.mark.parametrize("option, value, problem", [
    ("--window", "1e3", "'1e3' is not an integer in the range x>=1"),
    ("--window", "2.5", "'2.5' is not an integer in the range x>=1"),
    ("--seed", "0x10", "'0x10' is not an integer in the range 0<=x<=4294967295"),
])
def test_an_option_that_is_no_number_is_refused_with_its_range_as_a_parameter_is(files, option, value, problem):
    # QA: click said "'1e3' is not a valid integer range", naming no range, where -P k=1e3 is told
    # "allowed: an integer in [1, inf)"
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *MODEL, "--sensitive", files / "private.txt",
                 option, value)
    assert result.exit_code == 2 and not (files / "o.dat").exists()
    assert f"Invalid value for '{option}': {problem}" in result.output


def test_lists_of_numbers_are_ascii_digits_too(files):
    result = run("items", "split", files / "fig1.dat", "--public-share", "٠.٥", "--sensitive-out", files / "s.txt")
    assert result.exit_code == 2 and "'٠.٥' is not a number written in ASCII digits" in result.output
    result = run("bench", "audit", files / "fig1.dat", "--sigma", "0.3", "--noise", "0,٠.1")
    assert result.exit_code == 2 and "parameter 'noise': '0,٠.1' is not a comma-separated list" in result.output
    result = run("bench", "windows", files / "fig1.dat", *MODEL, "--sensitive", files / "private.txt", "--sizes", "2,٣")
    assert result.exit_code == 2 and "expected comma-separated integers" in result.output


@pytest.mark.parametrize("values", ["2,,3", "2,", ",", ""])
def test_a_list_of_integers_with_an_empty_value_is_refused_as_bench_audits_lists_are(files, values):
    # QA: bench windows --sizes 2,,3 ran sizes 2 and 3, where bench audit --noise 0,,0.1 is refused
    result = run("bench", "windows", files / "missing.dat", *MODEL, "--sensitive", files / "private.txt",
                 "--sizes", values)
    assert result.exit_code == 2 and "missing" not in result.output
    assert f"Invalid value for '--sizes': expected comma-separated integers, none of them empty, got {values!r}" \
        in result.output


@pytest.mark.parametrize("option, values", [
    (["sanitize", "effectiveness", "{data}", "--policies"], "naive,,iga"),
    (["sanitize", "speed", "{data}", "--policies"], "naive,"),
    (["coherence", "{data}", "--public-share", "0.5", "--h", "0.5", "--k", "2", "--p", "2", "--policies"], "mm,,il"),
    (["coherence", "{data}", "--public-share", "0.5", "--h", "0.5", "--k", "2", "--p", "2", "--policies"], ""),
    (["rho", "--datasets", "{folder}", "--dataset", "missing", "--rho"], "0.3,,0.5"),
    (["rho", "--datasets", "{folder}", "--dataset", "missing", "--policy"], "mine,,dist"),
    (["rho", "--datasets", "{folder}", "--dataset", "missing", "--experiment", "tmax", "--t-max-values"], "50,,off"),
    (["rho", "--datasets", "{folder}", "--dataset", "missing", "--experiment", "bmax", "--b-max-values"], ",1000"),
])
def test_a_list_of_names_or_values_with_an_empty_one_is_refused_as_the_integer_lists_are(files, option, values):
    # QA (offline user): bench rho --rho 0.3,,0.5 ran two values of ρ, bench sanitize --policies
    # naive,,iga two policies, and bench coherence --policies '' none but RmAll, each exit 0,
    # where -k 2,,5 and bench audit --noise 0,,0.1 are refused as a typo
    paths = {"{data}": str(files / "missing.dat"), "{folder}": str(files)}
    result = run("bench", *[paths.get(arg, arg) for arg in option], values)
    flag = option[-1].lstrip("-")
    assert result.exit_code == 2 and "missing" not in result.output and result.output.count("\n") == 1
    assert f"parameter '{flag}': {values!r} is not a comma-separated list (none of its values empty)" in result.output


@pytest.mark.parametrize("command", ["anonymize", "verify"])
def test_an_item_listed_sensitive_and_public_is_refused_naming_the_lines(files, command):
    # QA (offline user): "public.txt: 2 item(s) are listed as both sensitive and public" named
    # neither list's line, where every other refusal of an item list points at one
    public = files / "public.txt"
    public.write_text("a\nHIV\nb\nDiabetes\n")
    target = ["-o", files / "o.dat"] if command == "anonymize" else [files / "fig1.dat"]
    result = run(command, files / "fig1.dat", *target, *MODEL, "--sensitive", files / "private.txt",
                 "--public", public)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and not (files / "o.dat").exists()
    assert result.output == (f"setveil: error: {public}:2: the item is listed as sensitive too, on line 3 of "
                             f"{files / 'private.txt'}: list it as sensitive or as public, not both "
                             "(also line 4)\n")


def test_a_float_option_a_float_cannot_hold_as_typed_is_refused_as_a_parameter_is(files):
    # QA re-check: -P h=0.29999999999999999 was refused, yet bench coherence --h and items split
    # --h ran it as 0.3, loosening the threshold as typed
    for command in (["bench", "coherence", files / "fig1.dat", "--public-share", "0.5", "--k", "2", "--p", "2"],
                    ["items", "split", files / "fig1.dat", "--public-share", "0.5", "--sensitive-out", files / "s.txt"]):
        result = run(*command, "--h", "0.29999999999999999")
        assert result.exit_code == 2 and not (files / "s.txt").exists()
        assert ("Invalid value for '--h': got '0.29999999999999999', which a float holds only as 0.3, the value that "
                "would be used; give it as 0.3 or with at most 15 significant digits") in result.output
    result = run("items", "split", files / "fig1.dat", "--public-share", "0.5", "--h", "0.3000", "--sensitive-out",
                 files / "s.txt")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("method, option, used_by", [
    (["--method", "random", "--sensitive-share", "0.5"], ["--public-share", "0.5"], "coherence"),
    (["--method", "random", "--sensitive-share", "0.5"], ["--h", "0.5"], "coherence"),
    (["--public-share", "0.5"], ["--sensitive-share", "0.5"], "random"),
])
def test_items_split_refuses_an_option_its_method_would_ignore(files, method, option, used_by):
    # the mutation pass: no test gave one, and dropping the refusal wrote a split that ignored it
    result = run("items", "split", files / "fig1.dat", *method, *option, "--sensitive-out", files / "s.txt")
    ignoring = "random" if used_by == "coherence" else "coherence"
    assert result.exit_code == 2 and result.output == (f"setveil: error: parameter '{option[0][2:]}': an option of "
                                                       f"--method {used_by}; --method {ignoring} would ignore it\n")
    assert not (files / "s.txt").exists()


def test_items_split_of_an_input_without_items_says_so(files):
    # the mutation pass: with no test of it, the refusal was that the split makes no item sensitive
    (files / "blank.dat").write_text("\n\n")
    result = run("items", "split", files / "blank.dat", "--public-share", "0.5", "--sensitive-out", files / "s.txt")
    assert result.exit_code == 2
    assert result.output == f"setveil: error: {files / 'blank.dat'}: holds no items to split\n"
    assert not (files / "s.txt").exists()


@pytest.mark.parametrize("method, name, option", [
    (["--public-share", "1"], "public-share", "--public-share (or --h)"),
    (["--method", "random", "--sensitive-share", "0"], "sensitive-share", "--sensitive-share"),
])
def test_items_split_that_would_make_no_item_sensitive_writes_nothing(files, method, name, option):
    # the mutation pass: no test made every item public, and dropping the refusal wrote an empty
    # list, with exit 0, that every run then refuses
    result = run("items", "split", files / "fig1.dat", *method, "--sensitive-out", files / "s.txt")
    assert result.exit_code == 2 and result.output == (
        f"setveil: error: parameter '{name}': the split of {files / 'fig1.dat'} makes no item sensitive; every run "
        f"would refuse the list it wrote: change {option}\n")
    assert not (files / "s.txt").exists()


def test_hierarchy_build_refuses_a_fanout_below_2(files):
    # the mutation pass: no test gave --fanout 1, which then ended in the builder's ValueError
    result = run("hierarchy", "build", files / "fig1.dat", "--fanout", "1", "-o", files / "h.csv")
    assert result.exit_code == 2 and "Invalid value for '--fanout': 1 is not in the range x>=2" in result.output
    assert not (files / "h.csv").exists()


def test_a_psi_step_too_small_to_count_is_refused_by_its_range(files):
    # QA: 1e-320 overflowed counting the steps (a traceback) and 1e-300 ran without end
    result = run("bench", "sanitize", "effectiveness", files / "missing.dat", "--psi-step", "1e-300")
    assert result.exit_code == 2 and "'--psi-step': 1e-300 is not in the range 0.001<=x<=1" in result.output


def test_a_hierarchy_of_one_item_blames_the_input(files):
    # QA: "H.csv: a one-node hierarchy has no edge to write" named the output
    (files / "one.dat").write_text("a\na\n")
    result = run("hierarchy", "build", files / "one.dat", "--fanout", "2", "-o", files / "H.csv")
    assert result.exit_code == 2 and not (files / "H.csv").exists()
    assert f"{files / 'one.dat'}: holds one distinct item" in result.output


def test_an_empty_bootstrap_is_refused_not_taken_for_the_default(files):
    # QA: --bootstrap '' fell back to localhost:9092 and said no broker answered there
    result = run("replay", files / "fig1.dat", "--bootstrap", "")
    assert result.exit_code == 2 and "parameter 'kafka.bootstrap': '' is not host:port" in result.output


@pytest.mark.parametrize("command", [["bench", "coherence", "--public-share", "0.5", "--h", "0.5"], ["bench", "stream"]])
@pytest.mark.parametrize("option", ["--k", "--p"])
def test_a_model_count_past_64_bits_is_refused_by_its_option_and_the_range_its_help_shows(files, command, option):
    # QA: --k 2**63, which the help's "x>=1" admitted, was refused as "parameter 'k'" with the
    # range [1, inf), which holds it
    others = {"--k": "2", "--p": "2"}
    del others[option]
    result = run(*command[:2], files / "missing.dat", *command[2:], *others.popitem(), option, str(2**63))
    assert result.exit_code == 2 and "missing" not in result.output
    assert f"Invalid value for '{option}': {2**63} is not in the range 1<=x<=9223372036854775807" in result.output
    assert "1<=x<=9223372036854775807" in run(*command[:2], "--help").output


@pytest.mark.parametrize("command", [
    ["items", "split", "{data}", "--public-share", "0.5", "--sensitive-out", "{out}", "--seed"],
    ["audit", "rename", "{data}", "-o", "{out}", "--mapping", "{map}", "--seed"],
    ["audit", "publish", "{data}", "--sigma", "0.5", "-o", "{out}", "--seed"],
    ["audit", "deanonymize", "{data}", "--itemsets", "{data}", "--sigma", "0.5", "-o", "{out}", "--method", "lp",
     "--round"],
    ["bench", "audit", "{data}", "--sigma", "0.5", "--seed"],
    ["patterns", "sample", "{data}", "-o", "{out}", "--seed"],
    ["bench", "sanitize", "quest", "-o", "{out}", "--seed"],
    ["bench", "coherence", "{data}", "--public-share", "0.5", "--h", "0.5", "--k", "2", "--p", "2", "--seeds"],
    ["anonymize", "{data}", "-o", "{out}", *MODEL, "--sensitive", "{private}", "--seed"],
])
def test_every_seed_is_refused_past_32_bits_as_anonymizes_is(files, command):
    # QA: anonymize refused --seed 2**63 with its range, while items split, audit, patterns
    # sample and bench sanitize quest took any size of seed ("x>=0" in their help); within 32
    # bits since seed 2**32 drew for window 0 what seed 0 draws for window 1 (QA)
    paths = {"{data}": files / "missing.dat", "{out}": files / "out.txt", "{map}": files / "map.txt",
             "{private}": files / "private.txt"}
    result = run(*[paths.get(arg, arg) for arg in command], 2**32)
    assert result.exit_code == 2 and "missing" not in result.output and not (files / "out.txt").exists()
    assert f"{2**32}" in result.output and f"{2**32 - 1}" in result.output


@pytest.mark.parametrize("args, option, shown", [
    (["windows", "{data}", *MODEL, "--sensitive", "{private}", "--sizes", "2,5,2,5"], "--sizes", "2, 5"),
    (["partition", "{data}", "-k", "10,2,10"], "-k", "10"),
])
def test_a_list_of_integers_refuses_a_repeat_in_the_one_wording(files, args, option, shown):
    # the integer lists said "expected each value once", every other list "given more than once"
    args = [str(files / "fig1.dat") if a == "{data}" else str(files / "private.txt") if a == "{private}" else a
            for a in args]
    result = run("bench", *args)
    assert result.exit_code == 2
    assert f"Invalid value for '{option}': {shown} given more than once; give each once" in result.output


@pytest.mark.parametrize("value", ["nan", "NaN", "-nan"])
def test_a_float_option_refuses_nan_with_its_range(files, value):
    # nan compares false with both bounds, so click's FloatRange alone lets it through
    result = run("bench", "sanitize", "effectiveness", files / "missing.dat", "--psi-step", value)
    assert result.exit_code == 2 and "missing" not in result.output
    assert f"Invalid value for '--psi-step': {value!r} is not a number in the range 0.001<=x<=1" in result.output


@pytest.mark.parametrize("args, option, within", [
    (["windows", "{data}", *MODEL, "--sensitive", "{private}", "--sizes", "0,5"], "--sizes", ">= 1"),
    (["partition", "{data}", "--fanout", "1,4"], "--fanout", ">= 2"),
    (["partition", "{data}", "-k", "0,2"], "-k", "in [1, 9223372036854775807]"),
])
def test_a_list_of_integers_refuses_a_value_below_its_least_with_the_range(files, args, option, within):
    args = [str(files / "missing.dat") if a == "{data}" else str(files / "private.txt") if a == "{private}" else a
            for a in args]
    result = run("bench", *args)
    assert result.exit_code == 2 and "missing" not in result.output
    assert f"Invalid value for '{option}': expected integers {within}, got '{args[-1]}'" in result.output


@pytest.mark.parametrize("args", [
    ["coherence", "{data}", "--public-share", "0.5", "--h", "0.5", "--k", "2", "--p", "2", "--seeds", f"0,{2**32 - 1}"],
    ["partition", "{data}", "-k", f"2,{2**63 - 1}"],
])
def test_a_list_of_integers_takes_the_largest_value_its_range_shows(files, args):
    # the run goes on to its input, here missing, as with any value in range
    missing = files / "missing.dat"
    result = run("bench", *[missing if a == "{data}" else a for a in args])
    assert result.exit_code == 2 and result.output.startswith(f"setveil: error: {missing}: ")


def test_verify_lists_at_most_max_violations_each_named_by_its_window(files):
    # mutation pass: listing one violation past --max-violations, or dropping the "window i: " a
    # windowed check puts before each, went unnoticed
    release = files / "r.dat"
    release.write_text(FIGURE_1)  # the original as its own release: it breaks the model more than once
    private = ["--sensitive", files / "private.txt"]
    every = run("verify", files / "fig1.dat", release, *MODEL, *private)
    assert every.exit_code == 1 and every.output.count("violation: ") >= 2
    first = run("verify", files / "fig1.dat", release, *MODEL, *private, "--max-violations", "1")
    assert first.exit_code == 1 and first.output.count("violation: ") == 1
    assert f"{release}: FAILS coherence: 1 violation (stopped at --max-violations)" in first.output
    lines = FIGURE_1.splitlines()
    lines[3] += " w"  # transaction 3, in the second window of 2 (which takes the fifth as well)
    release.write_text("\n".join(lines) + "\n")
    windowed = run("verify", files / "fig1.dat", release, *MODEL, *private, "--window", "2")
    assert windowed.exit_code == 1 and "violation: window 1: " in windowed.output


def test_verify_counts_input_positions_across_every_window_before(files):
    # the third window's transaction 1 is input transaction 9: windows of 4, 4 and 2
    # a release holding the private items alone leaves an attacker nothing to know, bar the w added
    data, release = files / "twice.dat", files / "r.dat"
    data.write_text(FIGURE_1 * 2)
    private = ["--sensitive", files / "private.txt"]
    lines = [line.split()[-1] for line in (FIGURE_1 * 2).splitlines()]
    lines[9] += " w"
    release.write_text("\n".join(lines) + "\n")
    result = run("verify", data, release, *MODEL, *private, "--window", "4")
    assert result.exit_code == 1 and "violation: window 2: added-item" in result.output
    assert result.output.count("violation: ") == 1 and "transaction 9" in result.output


def test_the_report_records_the_window_and_the_seed(files):
    # mutation pass: the report's "window" and "seed" (README) were not compared with the run's
    report = files / "r.json"
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *MODEL, "--sensitive", files / "private.txt",
                 "--window", "2", "--seed", "7", "--report", report)
    assert result.exit_code == 0, result.output
    body = json.loads(report.read_text())
    assert body["window"] == 2 and body["seed"] == 7 and body["windows"] == 2


def test_the_report_says_a_release_made_with_no_verify_was_not_verified(files):
    # mutation pass: a report saying "verified": true of every run passed every test
    report = files / "r.json"
    model = [*MODEL, "--sensitive", files / "private.txt", "--window", "2", "--report", report]
    assert run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *model).exit_code == 0
    checked = json.loads(report.read_text())
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *model, "--no-verify")
    assert result.exit_code == 0
    unchecked = json.loads(report.read_text())
    assert checked["verified"] is True and [w["verified"] for w in checked["per_window"]] == [True, True]
    assert unchecked["verified"] is False and [w["verified"] for w in unchecked["per_window"]] == [False, False]
    # privacy-auditor pass: only the report said so, where the worker warns of model.verify=false
    assert result.stderr == ("setveil: warning: the release was written without the model's independent check "
                             "(--no-verify): nothing here says it satisfies coherence\n")


@pytest.mark.parametrize("pair, said", [
    ("m=2,api_token=hunter2", "parameter 'm': got '2,api_token=***', which holds what looks like another parameter"),
    ("api_token:hunter2", "parameter 'api_token': expected NAME=VALUE; the text given is not shown"),
    ("m=2 api_token hunter2", "parameter 'm': got '2 api_token ***', which holds what looks like another parameter"),
    ("=hunter2", "parameter '': the name before '=' is empty; expected NAME=VALUE (the value is not shown"),
], ids=["comma syntax", "no equals sign", "a secret's name without '='", "no name"])
def test_a_refused_param_option_never_shows_a_secret(files, pair, said):
    # Regression (QA): the service's comma syntax typed into -P, or a secret's name and its value
    # after a blank, was refused quoting m's whole value, and a pair without '=' or without a name
    # was echoed whole, secret included
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", "--model", "km-anonymity",
                 "-P", "k=2", "-P", pair)
    assert result.exit_code == 2 and said in result.output and "hunter2" not in result.output


def test_a_spelling_another_list_gives_is_another_item_not_a_misspelling(tmp_path):
    # review: Ca (calcium) sensitive, CA (cancer antigen) public, and data holding CA alone: the
    # sensitive list was refused as misspelt, though the public list names the data's spelling
    data, sensitive, public = tmp_path / "d.dat", tmp_path / "s.txt", tmp_path / "p.txt"
    data.write_text("a CA\na b\nb CA\na b flu\n" * 3)
    sensitive.write_text("flu\nCa\n")
    public.write_text("CA\na\nb\n")
    model = ["--model", "rho", "-P", "rho=0.9", "--sensitive", sensitive]
    result = run("anonymize", data, "-o", tmp_path / "o.dat", *model, "--public", public)
    assert result.exit_code == 0, result.output
    assert f"1 of the 2 items listed in {sensitive} never occur in {data}" in result.output
    result = run("anonymize", data, "-o", tmp_path / "o.dat", *model)
    assert result.exit_code == 2 and f"{sensitive}:2: the label never occurs in {data}" in result.output


@pytest.mark.parametrize("typed", ["1e309", "1e-400", "2e0"])
def test_a_float_option_out_of_its_range_is_named_as_typed(files, typed):
    # click named the converted value: --h 1e309 was "inf is not in the range", 1e-400 "0.0"
    result = run("items", "split", files / "fig1.dat", "--public-share", "0.5", "--h", typed,
                 "--sensitive-out", files / "s.txt")
    assert result.exit_code == 2 and not (files / "s.txt").exists()
    assert f"Invalid value for '--h': {typed} is not in the range 0<x<=1." in result.output


def test_an_integer_option_out_of_its_range_is_named_as_typed(files):
    result = run("anonymize", files / "fig1.dat", "-o", files / "o.dat", *MODEL, "--window", "+0")
    assert result.exit_code == 2 and not (files / "o.dat").exists()
    assert "Invalid value for '--window': +0 is not in the range x>=1." in result.output


@pytest.mark.parametrize("command", ["anonymize", "verify"])
def test_a_malformed_hierarchy_is_named_before_the_data_is_read(tmp_path, command):
    # the hierarchy is parsed with the options, so its line is named before a large input is read
    tree, missing = tmp_path / "h.csv", tmp_path / "missing.dat"
    tree.write_text("a,b\nb\n")
    target = ["-o", tmp_path / "o.dat"] if command == "anonymize" else [tmp_path / "r.dat"]
    result = run(command, missing, *target, "--model", "kanonymity", "-P", "k=2", "--hierarchy", tree)
    assert result.exit_code == 2 and result.output == f"setveil: error: {tree}:2: expected one edge 'child,parent'\n"
