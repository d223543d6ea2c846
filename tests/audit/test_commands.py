"""The audit commands end to end: the owner renames and publishes, the attacker names the items
back; bad input and bad parameters end in one line that names the file or the parameter."""

import json

import pytest
from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli
from setveil.core.formats import read_window

from .helpers import ASYMMETRIC, graph_database


@pytest.fixture(scope="module")
def runner():
    _load_plugin_commands()
    return CliRunner()


def invoke(runner, *args):
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def database(tmp_path):
    path = tmp_path / "db.dat"
    rows = [["a", "b", "c", "d"]] * 5 + [["a", "b", "c"]] * 4 + [["a", "b", "e"]] * 3 + [["a", "e"]] * 2 + [["f"]]
    path.write_text("".join(" ".join(row) + "\n" for row in rows))
    return path


def test_rename_publish_deanonymize_names_every_item(runner, tmp_path, database):
    renamed, mapping = tmp_path / "renamed.dat", tmp_path / "f.txt"
    assert invoke(runner, "audit", "rename", database, "-o", renamed, "--mapping", mapping, "--seed", 7).exit_code == 0
    original_rows = [sorted(row) for row in read_window(database)]
    names = dict(line.split() for line in mapping.read_text().splitlines())
    assert [sorted(names[a] for a in row) for row in original_rows] == [sorted(row) for row in read_window(renamed)]

    published = tmp_path / "published.txt"
    result = invoke(runner, "audit", "publish", database, "--sigma", 0.1, "-o", published)
    assert result.exit_code == 0
    assert "f" not in published.read_text().split()

    naming, report = tmp_path / "naming.txt", tmp_path / "report.json"
    result = invoke(runner, "audit", "deanonymize", renamed, "--itemsets", published, "--sigma", 0.1,
                    "-o", naming, "--truth", mapping, "--report", report, "--determined")
    assert result.exit_code == 0, result.output
    body = json.loads(report.read_text())
    assert body["accuracy"] == 1.0 and body["optimal"] and body["named_items"] == 5
    assert body["determined_items"] == 5 and sorted(body["determined"]) == list("abcde")
    found = {line.split()[0]: line.split()[1] for line in naming.read_text().splitlines()}
    assert found == {a: names[a] for a in "abcde"}
    assert "accuracy 1.000" in result.stderr and "5 of 5 names determined" in result.stderr


def test_noisy_frequencies_are_matched_within_the_tolerance(runner, tmp_path):
    data = tmp_path / "graph.dat"
    data.write_text("".join(" ".join(row) + "\n" for row in graph_database(ASYMMETRIC)))
    renamed, mapping, published = tmp_path / "r.dat", tmp_path / "f.txt", tmp_path / "p.txt"
    invoke(runner, "audit", "rename", data, "-o", renamed, "--mapping", mapping)
    invoke(runner, "audit", "publish", data, "--sigma", 0.05, "-o", published, "--noise", 0.004, "--seed", 4)
    args = ["audit", "deanonymize", renamed, "--itemsets", published, "--sigma", 0.05, "-o", tmp_path / "n.txt",
            "--truth", mapping]
    exact = invoke(runner, *args)
    assert exact.exit_code == 1
    assert "match no itemset mined from the renamed data (the first on line " in exact.stderr
    within = invoke(runner, *args, "--tolerance", 0.02)
    assert within.exit_code == 0 and "accuracy 1.000" in within.stderr


@pytest.mark.parametrize("text, where", [
    ("0.5 a\nx b\n", "p.txt:2: an itemset line starts with its frequency"),
    ("0.5 a a\n", "p.txt:1: an item is repeated"),
])
def test_a_malformed_itemset_file_is_one_line_naming_file_and_line(runner, tmp_path, database, text, where):
    (tmp_path / "p.txt").write_text(text)
    result = invoke(runner, "audit", "deanonymize", database, "--itemsets", tmp_path / "p.txt", "--sigma", 0.1,
                    "-o", tmp_path / "n.txt")
    assert result.exit_code == 2
    assert where in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_malformed_mapping_names_its_line(runner, tmp_path, database):
    (tmp_path / "p.txt").write_text("0.5 a\n")
    (tmp_path / "f.txt").write_text("a 1\nb\n")
    result = invoke(runner, "audit", "deanonymize", database, "--itemsets", tmp_path / "p.txt", "--sigma", 0.1,
                    "-o", tmp_path / "n.txt", "--truth", tmp_path / "f.txt")
    assert result.exit_code == 2
    assert "f.txt:2: a mapping line holds an original and a renamed label" in result.stderr


@pytest.mark.parametrize("args, name", [
    (["--tolerance", "-1"], "--tolerance"),
    (["--tolerance", "nan"], "--tolerance"),
    (["--method", "qp"], "--method"),
    (["--unmatched-cost", "0"], "--unmatched-cost"),
    (["--sigma", "1.5"], "--sigma"),
])
def test_parameters_are_checked_before_anything_is_read(runner, tmp_path, args, name):
    base = {"--sigma": "0.1"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    flat = [x for pair in base.items() for x in pair]
    result = invoke(runner, "audit", "deanonymize", tmp_path / "missing.dat", "--itemsets", tmp_path / "missing.txt",
                    *flat, "-o", tmp_path / "n.txt")
    assert result.exit_code == 2
    assert name in result.output + result.stderr
    assert "missing" not in result.stderr


def test_the_linear_programs_votes_round_to_a_naming(runner, tmp_path, database):
    renamed, mapping, published = tmp_path / "r.dat", tmp_path / "f.txt", tmp_path / "p.txt"
    invoke(runner, "audit", "rename", database, "-o", renamed, "--mapping", mapping)
    invoke(runner, "audit", "publish", database, "--sigma", 0.1, "-o", published)
    naming, report = tmp_path / "n.txt", tmp_path / "r.json"
    result = invoke(runner, "audit", "deanonymize", renamed, "--itemsets", published, "--sigma", 0.1, "--method", "lp",
                    "--round", 3, "-o", naming, "--truth", mapping, "--report", report)
    assert result.exit_code == 0, result.output
    lines = [line.split() for line in naming.read_text().splitlines()]
    assert [weight for _, _, weight in lines] == ["1"] * 5
    body = json.loads(report.read_text())
    assert body["named_items"] == 5 and body["rounded_accuracy"] == 1.0


def test_rounding_needs_the_linear_program(runner, tmp_path):
    result = invoke(runner, "audit", "deanonymize", tmp_path / "missing.dat", "--itemsets", tmp_path / "missing.txt",
                    "--sigma", 0.1, "--round", 1, "-o", tmp_path / "n.txt")
    assert result.exit_code == 2
    assert "parameter 'round': draws a naming from the votes of --method lp" in result.stderr


def test_determined_names_need_an_integral_method(runner, tmp_path):
    result = invoke(runner, "audit", "deanonymize", tmp_path / "missing.dat", "--itemsets", tmp_path / "missing.txt",
                    "--sigma", 0.1, "--method", "lp", "--determined", "-o", tmp_path / "n.txt")
    assert result.exit_code == 2
    assert "parameter 'determined': needs a naming: --method ip or mip" in result.stderr


def test_the_benchmark_prints_a_row_per_noise_and_method(runner, tmp_path):
    data = tmp_path / "graph.dat"
    data.write_text("".join(" ".join(row) + "\n" for row in graph_database(ASYMMETRIC)))
    out = tmp_path / "bench.json"
    result = invoke(runner, "bench", "audit", data, "--sigma", 0.05, "--noise", "0,0.004", "--runs", 2,
                    "--json", out)
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())["summary"]
    assert [(row["noise"], row["method"]) for row in summary] == [
        (noise, method) for noise in (0.0, 0.004) for method in ("ip", "mip", "lp")]
    exact = {row["method"]: row["accuracy"] for row in summary if row["noise"] == 0.0}
    assert exact["ip"] == exact["mip"] == 1.0
    assert "| noise | method" in result.output
    assert "  run 2/2, noise 0.004, lp: accuracy " in result.stderr
