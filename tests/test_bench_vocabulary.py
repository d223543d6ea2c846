"""One vocabulary for the benchmarks' tables: each column is headed by the ``--json`` key that
holds its figure (a share shown in percent: the key and ``_%``), so that the check's seconds and
a forked run's memory read ``verify_seconds``, ``peak_mib``, ``run_mib`` and ``tree_mib`` in
every command that measures them (docs/operations.md, "One setting's time and memory")."""

import json

import pytest
from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli

from .benchdata import small_transactions

#: the names of the quantities several benchmarks measure
SHARED = {"verify_seconds", "peak_mib", "run_mib", "tree_mib"}


def run(*args):
    _load_plugin_commands()
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def headers(output: str) -> list[list[str]]:
    """Every Markdown table's header cells in ``output``."""
    lines = output.splitlines()
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line, below in zip(lines, lines[1:]) if line.startswith("|") and below.startswith("|-")]


def shown_as_keys(header: list[str], keys: set[str]) -> list[str]:
    """The cells of ``header`` that name no key of ``keys``, nor a key shown in percent."""
    return [cell for cell in header if cell not in keys and not (cell.endswith("_%") and cell[:-2] in keys)]


@pytest.fixture
def data(tmp_path):
    return small_transactions(tmp_path)


def test_bench_run(data, tmp_path):
    (tmp_path / "private.txt").write_text("1\n2\n")
    out = tmp_path / "run.json"
    output = run("bench", "run", data, "-m", "coherence", "-P", "h=0.9", "-P", "k=2", "-P", "p=2", "--sensitive",
                 tmp_path / "private.txt", "--runs", "1", "--json", out)
    body = json.loads(out.read_text())
    (header,) = headers(output)
    assert shown_as_keys(header, set(body["summary"]) | set(body["rows"][0])) == []
    assert SHARED <= set(header)


def test_bench_partition(data, tmp_path):
    # review: 'cpu s', 'verify s', 'peak MiB', 'run MiB', 'tree MiB', 'NCP %', where bench run
    # and bench rho head their columns with their keys
    out = tmp_path / "partition.json"
    output = run("bench", "partition", data, "-k", "2", "--fanout", "2", "-m", "2", "--json", out)
    header = headers(output)[0]
    assert shown_as_keys(header, set(json.loads(out.read_text())[0])) == []
    assert SHARED | {"cpu_seconds", "ncp_%"} <= set(header)


def test_bench_sanitize_speed_and_effectiveness(tmp_path):
    # review: 'index_s', 'verify_s', 'peak_MiB', 'sensitive', 'removed'; 'HF%', 'dissim%'
    data = tmp_path / "db.dat"
    rows = [["a", "b", "c", "d"], ["a", "b", "c"], ["a", "b", "d"], ["a", "c", "d"], ["b", "c", "e"], ["a", "b", "e"]]
    data.write_text("".join(" ".join(r) + "\n" for r in rows * 5))
    out = tmp_path / "speed.json"
    output = run("bench", "sanitize", "speed", data, "-n", "2", "--min-support", "0.3", "--runs", "1",
                 "--policies", "minfia", "--json", out)
    (header,) = headers(output)
    assert shown_as_keys(header, set(json.loads(out.read_text())[0])) == []
    assert SHARED <= set(header)
    out = tmp_path / "effectiveness.json"
    output = run("bench", "sanitize", "effectiveness", data, "-n", "2", "--min-support", "0.3", "--seeds", "2",
                 "--psi-step", "0.5", "--policies", "minfia", "--json", out)
    tables = headers(output)
    keys = set(json.loads(out.read_text())["rows"][0])
    assert len(tables) == 2 and all(shown_as_keys(header, keys) == [] for header in tables)
    assert "hiding_failure_%" in tables[0] and "removed_items" in tables[0]


def test_bench_rho(tmp_path):
    # review: bench rho's check seconds were verify_s, in its table and its JSON, where bench run,
    # bench partition and bench sanitize speed give verify_seconds
    lines = [" ".join(str(x) for x in sorted({i % 5, i % 3 + 5, i % 4 + 8})) for i in range(60)]
    (tmp_path / "mine.dat").write_text("\n".join(lines) + "\n")
    out = tmp_path / "rho.json"
    output = run("bench", "rho", "--datasets", tmp_path, "--dataset", "mine", "--experiment", "quality",
                 "--rho", "0.7", "--policy", "dist", "--workers", "1", "--json", out)
    (row,) = json.loads(out.read_text())["rows"]["quality"]
    (header,) = headers(output)
    assert shown_as_keys(header, set(row)) == []
    assert "verify_seconds" in header and "verify_s" not in row and row["verify_seconds"] >= 0
    assert SHARED <= set(row)


def rows_of(output: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table in ``output``, by header."""
    lines = [line for line in output.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")))) for line in lines[2:]]


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.dat"
    path.write_text("1 2\n2 3\n1 3\n3 4\n")
    return path


def test_a_figure_a_row_lacks_reads_n_a_in_bench_partition(tiny):
    # review: blank in bench partition, 'n/a' in bench sanitize, '-' in bench stream; here the
    # refused setting's figures (k above the 4 transactions) and m, which Partition does not take
    output = run("bench", "partition", tiny, "-k", "2,10", "--fanout", "2", "-m", "2")
    partition, aa, refused, refused_aa = rows_of(output)
    assert partition["m"] == refused["m"] == "n/a" and aa["m"] == "2"
    measured = ["seconds", "cpu_seconds", "verify_seconds", "peak_mib", "run_mib", "tree_mib", "ncp_%"]
    assert [refused_aa[key] for key in measured] == ["n/a"] * 7 and refused_aa["verified"].startswith("refused: ")
    assert all(partition[key] not in ("", "n/a") for key in measured)


def test_a_figure_a_row_lacks_reads_n_a_in_bench_windows(tiny):
    # k above the window's 4 transactions: every window rejected, so no latency nor loss
    output = run("bench", "windows", tiny, "-m", "kanonymity", "-P", "k=10", "--fanout", "2", "--sizes", "10")
    (row,) = rows_of(output)
    assert row["rejected"] == "1" and row["rejected_p50_latency_s"] != "n/a"
    assert row["p50_latency_s"] == row["p99_latency_s"] == row["info_loss"] == "n/a"


def test_a_figure_a_row_lacks_reads_n_a_in_bench_coherence_and_a_reason_none_blank(tmp_path, monkeypatch):
    # RmAll searches no moles; a policy whose search the budget refuses has no distortion
    from setveil.plugins.coherence import moles

    monkeypatch.setattr(moles, "CANDIDATE_BUDGET", 0)
    data = tmp_path / "d.dat"
    data.write_text("a b c s\na b c\na b s\na c\nb c s\na b c\n" * 5)
    output = run("bench", "coherence", data, "--public-share", "1", "--h", "1", "--k", "2", "--p", "3", "--seeds", "1",
                 "--policies", "mm-il")
    rows = {row["approach"]: row for row in rows_of(output)}
    assert rows["mm-il"]["distortion"] == rows["mm-il"]["minimal_moles"] == "n/a"
    assert rows["mm-il"]["refused"].startswith("model error: mining at a support of 2")
    assert rows["rmall"]["find_moles_seconds"] == rows["rmall"]["minimal_moles"] == "n/a"
    assert rows["rmall"]["distortion"] != "n/a" and rows["rmall"]["refused"] == ""


def test_bench_streams_figure_a_run_lacks_reads_n_a():
    from setveil.streams.bench import _shown

    assert _shown(None, ".0f", 1000) == "n/a" and _shown(0.0123, ".0f", 1000) == "12"


def test_a_figure_a_row_lacks_reads_n_a_in_bench_partitions_means_over_the_fan_outs(tiny):
    # AA not run: its column of the means over the fan-outs has no figure
    output = run("bench", "partition", tiny, "-k", "2", "--fanout", "2,3", "-m", "2", "--models", "partition")
    means = output[output.index("Means over the fan-outs"):]
    (row,) = rows_of(means)
    assert row["aa m=2"] == "n/a" and row["partition"] not in ("", "n/a")


def test_a_figure_a_row_lacks_reads_n_a_in_bench_sanitize_speed(tmp_path, monkeypatch):
    # tree_mib where Linux's smaps_rollup cannot be read
    from setveil.core import bench

    monkeypatch.setattr(bench, "tree_mib", lambda root: None)
    data = tmp_path / "db.dat"
    data.write_text("a b c d\na b c\na b d\na c d\nb c e\na b e\n" * 5)
    output = run("bench", "sanitize", "speed", data, "-n", "2", "--min-support", "0.3", "--runs", "1",
                 "--policies", "minfia")
    (row,) = rows_of(output)
    assert row["tree_mib"] == "n/a" and row["peak_mib"] not in ("", "n/a")
