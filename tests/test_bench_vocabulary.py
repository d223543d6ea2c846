"""One vocabulary for the benchmarks' tables: each column is headed by the ``--json`` key that
holds its figure (a share shown in percent: the key and ``_%``), so that the check's seconds and
a forked run's memory read ``verify_seconds``, ``peak_mib``, ``run_mib`` and ``tree_mib`` in
every command that measures them (docs/operations.md, "One setting's time and memory")."""

import json
import random

import pytest
from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli

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
    rng = random.Random(3)
    rows = [rng.sample(range(1, 13), rng.randint(1, 5)) for _ in range(40)]
    path = tmp_path / "small.dat"
    path.write_text("".join(" ".join(map(str, row)) + "\n" for row in rows))
    return path


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
