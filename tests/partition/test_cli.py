"""The command line: hierarchy build, anonymize/verify with --hierarchy or --fanout, the report's
NCP, and bad hierarchy input -> one line naming file and line, exit 2, nothing written."""

import json

import pytest

from ..core.figure1 import run
from .examples import TABLE_2

DATA = "".join(" ".join(original) + "\n" for original, _, _ in TABLE_2.values())
FIG2 = "A,ALL\nB,ALL\na1,A\na2,A\nb1,B\nb2,B\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "t2.dat").write_text(DATA)
    (tmp_path / "fig2.csv").write_text(FIG2)
    (tmp_path / "numbers.dat").write_text("1 2\n3 10\n2 3\n1 10\n")
    return tmp_path


def test_anonymize_with_a_hierarchy_file_reproduces_table_2(files):
    out, report = files / "out.dat", files / "r.json"
    result = run("anonymize", files / "t2.dat", "-o", out, "--model", "kanonymity", "-P", "k=2",
                 "--hierarchy", files / "fig2.csv", "--report", report)
    assert result.exit_code == 0, result.output
    assert [set(line.split()) for line in out.read_text().splitlines()] == [set(local) for _, local, _ in TABLE_2.values()]
    body = json.loads(report.read_text())
    assert body["verified"] is True and body["loss_metric"].startswith("NCP")
    assert body["info_loss"] == pytest.approx(3.5 / 17) and body["metrics"]["ncp"] == pytest.approx(3.5 / 17)
    result = run("verify", files / "t2.dat", out, "--model", "kanonymity", "-P", "k=2", "--hierarchy", files / "fig2.csv")
    assert result.exit_code == 0 and "satisfies kanonymity" in result.output
    result = run("verify", files / "t2.dat", out, "--model", "kanonymity", "-P", "k=3", "--hierarchy", files / "fig2.csv")
    assert result.exit_code == 1 and "small-class" in result.output


def test_the_report_counts_the_labels_the_release_holds(files):
    # docs/partition.md: `released_labels` is how many distinct labels the whole release holds. AA
    # releases b1 and b2 of Table 2 only as B (mutation review: the count took in b1 and b2, which the
    # release's vocabulary keeps from the input's)
    out, report = files / "out.dat", files / "r.json"
    result = run("anonymize", files / "t2.dat", "-o", out, "--model", "km-anonymity", "-P", "k=2", "-P", "m=2",
                 "--hierarchy", files / "fig2.csv", "--report", report)
    assert result.exit_code == 0, result.output
    assert [set(line.split()) for line in out.read_text().splitlines()] == [set(g) for _, _, g in TABLE_2.values()]
    assert json.loads(report.read_text())["metrics"]["released_labels"] == 3


def test_an_input_of_empty_transactions_is_released_as_it_is_with_nothing_lost(files):
    # mutation review: the report said 1 released label for a release of none
    data, out, report = files / "empty.dat", files / "out.dat", files / "r.json"
    data.write_text("\n\n\n")
    result = run("anonymize", data, "-o", out, "--model", "kanonymity", "-P", "k=2", "--hierarchy", files / "fig2.csv",
                 "--report", report)
    assert result.exit_code == 0, result.output
    assert out.read_text() == "\n\n\n"
    body = json.loads(report.read_text())
    assert body["info_loss"] == 0.0
    assert body["metrics"] == {"ncp": 0.0, "generalized_share": 0.0, "released_labels": 0}


def test_hierarchy_build_then_fanout_and_file_runs_agree(files):
    h = files / "h.csv"
    result = run("hierarchy", "build", files / "numbers.dat", "--fanout", "2", "-o", h)
    assert result.exit_code == 0
    # numeric order: 10 sorts after 3
    assert h.read_text() == "1..2,1..10\n1,1..2\n2,1..2\n3..10,1..10\n3,3..10\n10,3..10\n"
    by_file, by_fanout = files / "a.dat", files / "b.dat"
    model = ["--model", "km-anonymity", "-P", "k=2", "-P", "m=2"]
    assert run("anonymize", files / "numbers.dat", "-o", by_file, *model, "--hierarchy", h, "--report",
               files / "a.json").exit_code == 0
    assert run("anonymize", files / "numbers.dat", "-o", by_fanout, *model, "--fanout", "2", "--report",
               files / "b.json").exit_code == 0
    assert by_file.read_text() == by_fanout.read_text()
    # the mutation pass: a context that named only a hierarchy file by digest left the hierarchy
    # built by fan-out out of the report
    contexts = [json.loads((files / name).read_text())["context"] for name in ("a.json", "b.json")]
    assert contexts[0] == contexts[1] and set(contexts[1]) == {"hierarchy"}
    assert run("verify", files / "numbers.dat", by_file, *model, "--fanout", "2").exit_code == 0


@pytest.mark.parametrize("model", [["kanonymity", "-P", "k=3"], ["km-anonymity", "-P", "k=3", "-P", "m=2"]])
def test_windows_are_held_to_k_transactions(files, model):
    # fewer than k transactions have no safe release: --window below k is refused before the data is
    # read, and a last window that small joins the one before it (mutation review: with the models'
    # smallest window 1, Table 2's seven transactions in windows of 3 ended in one that failed the run)
    out, report = files / "out.dat", files / "r.json"
    args = ["anonymize", files / "t2.dat", "-o", out, "--model", *model, "--fanout", "2"]
    refused = run(*args, "--window", "2")
    assert refused.exit_code == 2 and "--window 2 is fewer than the 3 transactions" in refused.output
    assert not out.exists()
    result = run(*args, "--window", "3", "--report", report)
    assert result.exit_code == 0, result.output
    assert [w["transactions"] for w in json.loads(report.read_text())["per_window"]] == [3, 4]


def test_windows_share_the_fanout_hierarchy_of_the_whole_input(files):
    data = files / "twice.dat"
    data.write_text(DATA * 2)
    out, report = files / "out.dat", files / "r.json"
    model = ["--model", "kanonymity", "-P", "k=2", "--fanout", "2"]
    result = run("anonymize", data, "-o", out, *model, "--window", "7", "--report", report)
    assert result.exit_code == 0
    lines = out.read_text().splitlines()
    assert lines[:7] == lines[7:]
    body = json.loads(report.read_text())
    assert body["windows"] == 2 and body["info_loss"] == pytest.approx(body["per_window"][0]["info_loss"])
    # regression (code review): the report summed the hierarchy's size and height over the windows
    per_window = [w["stats"] for w in body["per_window"]]
    assert body["stats"]["hierarchy_nodes"] == per_window[0]["hierarchy_nodes"] == per_window[1]["hierarchy_nodes"]
    assert body["stats"]["hierarchy_height"] == per_window[0]["hierarchy_height"]
    assert body["stats"]["generalized_occurrences"] == sum(w["generalized_occurrences"] for w in per_window)
    assert run("verify", data, out, *model, "--window", "7").exit_code == 0


@pytest.mark.parametrize(
    "hierarchy_text, data, message",
    [
        ("A,ALL\nB,ALL\na1,A\na1,B\n", DATA, "fig.csv:4: the child has two parents"),
        ("A,B\nB,A\n", DATA, "fig.csv:2: the edge closes a cycle"),
        ("A,ALL\na1,A\na2,A\nb1,B\nb2,B\n", DATA, "fig.csv:4: 2 roots"),
        # QA: the message named neither the data file nor where in it
        (FIG2, DATA + "c1\n", "fig.csv: 1 item of {data} is not in the hierarchy; the first in transaction "
         f"{DATA.count(chr(10))} (counted from 0)"),
        (FIG2, "A\n" + DATA, "fig.csv: 1 item of {data} is an inner node of the hierarchy, not a leaf; the first "
         "in transaction 0 (counted from 0)"),
    ],
)
def test_bad_hierarchies_exit_2_naming_file_and_line(files, hierarchy_text, data, message):
    (files / "fig.csv").write_text(hierarchy_text)
    (files / "in.dat").write_text(data)
    out = files / "never.dat"
    result = run("anonymize", files / "in.dat", "-o", out, "--model", "kanonymity", "-P", "k=2", "--hierarchy", files / "fig.csv")
    assert result.exit_code == 2
    assert message.format(data=files / "in.dat") in result.output and result.output.count("\n") == 1
    assert not out.exists()


def test_items_of_standard_input_missing_from_the_hierarchy_name_it_as_such(files):
    out = files / "never.dat"
    result = run("anonymize", "-", "-o", out, "--model", "kanonymity", "-P", "k=2", "--hierarchy", files / "fig2.csv",
                 input=DATA + "c1\n")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "fig2.csv: 1 item of standard input is not in the hierarchy; the first in transaction" in result.output
    assert not out.exists()


@pytest.mark.parametrize("output", ["never.dat", "never.dat.gz"])
def test_a_node_label_fimi_cannot_carry_is_refused_before_anonymizing(files, output):
    # Regression (QA): "Health Care" failed the FIMI write after the whole run, naming line 1 of
    # the output file, which was never written
    (files / "fig.csv").write_text('Alcohol,ALL\n"Health Care",ALL\nBeer,Alcohol\nWine,Alcohol\n'
                                   'Diapers,"Health Care"\nPT,"Health Care"\n')
    (files / "in.dat").write_text("Beer Diapers\nWine Diapers PT\nBeer Wine PT\nBeer Wine Diapers PT\n")
    model = ["--model", "kanonymity", "-P", "k=2", "--hierarchy", files / "fig.csv"]
    result = run("anonymize", files / "in.dat", "-o", files / output, *model)
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"{files / 'fig.csv'}:2: a hierarchy node above the data's items has a label with whitespace" in result.output
    assert not (files / output).exists()
    released = run("anonymize", files / "in.dat", "-o", files / "out.jsonl", *model)
    assert released.exit_code == 0 and "Health Care" in (files / "out.jsonl").read_text()
    assert run("verify", files / "in.dat", files / "out.jsonl", *model).exit_code == 0
    # a node above no item of the data cannot be released, so it stands
    (files / "alcohol.dat").write_text("Beer Wine\nBeer\nWine\nBeer Wine\n")
    assert run("anonymize", files / "alcohol.dat", "-o", files / output, *model).exit_code == 0


def test_a_model_that_generalizes_needs_a_hierarchy(files):
    result = run("anonymize", files / "t2.dat", "-o", files / "o.dat", "--model", "kanonymity", "-P", "k=2")
    assert result.exit_code == 2 and "--hierarchy FILE or --fanout N" in result.output
    # before the data is read (the mutation pass: without the registry's check the first window
    # asked for the hierarchy, after the input had been read, or failed to be)
    result = run("anonymize", files / "missing.dat", "-o", files / "o.dat", "--model", "kanonymity", "-P", "k=2")
    assert result.exit_code == 2 and result.output == (
        "setveil: error: parameter 'hierarchy': model 'kanonymity' needs a hierarchy: give --hierarchy FILE or "
        "--fanout N\n")


def test_an_infeasible_window_writes_nothing(files):
    # Table 2's transactions and empty ones, 8 in all, so the model itself refuses the window: an
    # input of fewer than k is refused before any window (tests/core/test_input_shorter_than_a_window.py)
    out, data = files / "o.dat", files / "padded.dat"
    data.write_text(DATA + "\n" * (8 - DATA.count("\n")))
    result = run("anonymize", data, "-o", out, "--model", "kanonymity", "-P", "k=8", "--fanout", "2")
    assert result.exit_code == 1 and "fewer than k=8" in result.output and not out.exists()
