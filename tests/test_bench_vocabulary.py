"""One vocabulary for the benchmarks' tables: each column is headed by the ``--json`` key that
holds its figure (a share shown in percent: the key and ``_%``), so that the check's seconds and
a forked run's memory read ``verify_seconds``, ``peak_mib``, ``run_mib`` and ``tree_mib`` in
every command that measures them (docs/operations.md, "One setting's time and memory"), and one
quantity has one key in every command: seconds as ``_seconds``, never ``_s``, and none of
:data:`SYNONYMS`."""

import json

import pytest
from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli

from .benchdata import small_transactions

#: the names of the quantities several benchmarks measure
SHARED = {"verify_seconds", "peak_mib", "run_mib", "tree_mib"}
#: keys once given to a quantity that another benchmark named otherwise, each with the key every
#: benchmark now gives it (review: bench windows and bench stream named throughput, latency and
#: loss each their own way, bench coherence's summary its rows' seconds)
SYNONYMS = {
    "tx_per_second": "transactions_per_second",
    "rate": "transactions_per_second",
    "p50_latency_s": "latency_p50_seconds",
    "latency_p50": "latency_p50_seconds",
    "p99_latency_s": "latency_p99_seconds",
    "latency_p99": "latency_p99_seconds",
    "rejected_p50_latency_s": "rejected_latency_p50_seconds",
    "information_loss": "info_loss",
    "find_moles_s": "find_moles_seconds",
    "eliminate_s": "eliminate_seconds",
}


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
    assert row["rejected"] == "1" and row["rejected_latency_p50_seconds"] != "n/a"
    assert row["latency_p50_seconds"] == row["latency_p99_seconds"] == row["info_loss"] == "n/a"


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


def test_a_figure_a_run_lacks_reads_n_a_in_bench_stream(tmp_path):
    # every window rejected: no latency nor loss; one window per partition: no throughput
    measured = stream_run(0.0123, 0.02, 0.18)
    rejected = stream_run(None, None, None)
    rejected.seconds = rejected.measured = 0
    released, none = rows_of(stream_table(tmp_path, measured, rejected))
    figures = ["transactions_per_second", "latency_p50_seconds", "latency_p99_seconds", "info_loss"]
    assert [none[key] for key in figures] == ["n/a"] * 4
    assert [released[key] for key in figures] == ["533.3", "0.0123", "0.02", "0.18"]


def test_a_figure_a_row_lacks_reads_n_a_in_bench_partitions_means_over_the_fan_outs(tiny, monkeypatch):
    # AA refused at every fan-out: its column of the means over the fan-outs has no figure (AA not
    # run at all has no column)
    from setveil.core.errors import Infeasible
    from setveil.plugins.partition.models import KmAnonymity

    def refused(self, window, policy, rng):
        raise Infeasible("no release")

    monkeypatch.setattr(KmAnonymity, "anonymize", refused)  # in the forked runs too
    output = run("bench", "partition", tiny, "-k", "2", "--fanout", "2,3", "-m", "2")
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


def json_keys(value) -> set[str]:
    """Every key of every map in a ``--json`` document."""
    if isinstance(value, dict):
        return set(value).union(*map(json_keys, value.values()))
    if isinstance(value, list):
        return set().union(*map(json_keys, value))
    return set()


def misnamed(keys: set[str]) -> list[str]:
    """The keys that name a quantity otherwise than every benchmark does, each with its name: a
    key holds a share, which its table's header alone shows in percent (the key and ``_%``)."""
    return sorted(f"{key}, not {_named(key)}" for key in keys
                  if key in SYNONYMS or key.endswith("_s") or key.endswith("_%"))


def _named(key: str) -> str:
    if key in SYNONYMS:
        return SYNONYMS[key]
    if key.endswith("_%"):
        return key.removesuffix("_%") + " (a share)"
    return key.removesuffix("_s") + "_seconds"


def stream_run(latency_p50: float | None, latency_p99: float | None, loss: float | None):
    """A run of bench stream at windows of 1,000: 900 transactions emitted, 800 within 1.5 s."""
    from setveil.streams.bench import Run

    return Run(1000, 1, 1, 900, 1.5, 800, latency_p50, latency_p99, loss, 1, 120.0, 1.2)


def stream_table(tmp_path, *runs) -> str:
    """What bench stream prints for ``runs``, measured without a broker."""
    from setveil.core.formats import read_window
    from setveil.streams import bench
    from setveil.streams.replay import pack_unkeyed

    dataset = tmp_path / "tiny.dat"
    dataset.write_text("".join(f"{i % 7} {i % 5 + 10} {i % 3 + 20}\n" for i in range(40)))
    window = read_window(dataset)
    config = bench.BenchConfig(dataset, window, ["--model", "coherence", "-P", "h=0.4", "-P", "k=5", "-P", "p=3"],
                               "h=0.4 k=5 p=3", 0.4, 5, 0.2, 1, (None, None), True, 10, pack_unkeyed(window, 10, 1 << 20, 1 << 24),
                               2, [10], [1], len(runs))
    measured = iter(runs)
    lines = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bench, "measure", lambda *args: next(measured))
        bench.run_bench(type("Broker", (), {"kind": "external"})(), config, lines.append)
    return "\n".join(lines)


@pytest.mark.parametrize("command", ["run", "windows", "coherence", "partition", "rho", "sanitize speed",
                                     "sanitize effectiveness", "audit"])
def test_every_benchmark_names_a_quantity_as_the_others_do(command, data, tmp_path):
    (tmp_path / "private.txt").write_text("1\n2\n")
    coherence = ["-m", "coherence", "-P", "h=0.9", "-P", "k=2", "-P", "p=2", "--sensitive", tmp_path / "private.txt"]
    database = tmp_path / "db.dat"
    database.write_text("a b c d\na b c\na b d\na c d\nb c e\na b e\n" * 5)
    lines = [" ".join(str(x) for x in sorted({i % 5, i % 3 + 5, i % 4 + 8})) for i in range(60)]
    (tmp_path / "mine.dat").write_text("\n".join(lines) + "\n")
    arguments = {
        "run": [data, *coherence, "--runs", "1"],
        "windows": [data, *coherence, "--sizes", "10,20"],
        "coherence": [database, "--public-share", "0.5", "--h", "1", "--k", "2", "--p", "2", "--seeds", "1"],
        "partition": [data, "-k", "2", "--fanout", "2", "-m", "2"],
        "rho": ["--datasets", tmp_path, "--dataset", "mine", "--experiment", "quality", "--rho", "0.7", "--policy",
                "dist", "--workers", "1"],
        "sanitize speed": [database, "-n", "2", "--min-support", "0.3", "--runs", "1", "--policies", "minfia"],
        "sanitize effectiveness": [database, "-n", "2", "--min-support", "0.3", "--seeds", "2", "--psi-step", "0.5",
                                   "--policies", "minfia"],
        "audit": [database, "--sigma", "0.3", "--noise", "0,0.01", "--runs", "1"],
    }[command]
    out = tmp_path / "bench.json"
    output = run("bench", *command.split(), *arguments, "--json", out)
    keys = json_keys(json.loads(out.read_text()))
    assert misnamed(keys) == []
    assert misnamed({cell.removesuffix("_%") for header in headers(output) for cell in header}) == []


def test_bench_stream_names_a_quantity_as_the_others_do(tmp_path):
    # review: its table, of fixed-width columns, headed the latencies in ms as latency_p50_ms
    row = stream_run(0.01, 0.02, 0.18).json_row()
    assert misnamed(set(row)) == []
    (header,) = headers(stream_table(tmp_path, stream_run(0.01, 0.02, 0.18)))
    assert shown_as_keys(header, set(row)) == []
    assert {"transactions_per_second", "latency_p50_seconds", "latency_p99_seconds", "info_loss", "peak_rss_mib",
            "cpu_seconds"} <= set(header)


def test_bench_windows_and_coherence_head_their_columns_with_their_keys(data, tmp_path):
    (tmp_path / "private.txt").write_text("1\n2\n")
    out = tmp_path / "windows.json"
    output = run("bench", "windows", data, "-m", "coherence", "-P", "h=0.9", "-P", "k=2", "-P", "p=2", "--sensitive",
                 tmp_path / "private.txt", "--sizes", "10,20", "--json", out)
    (header,) = headers(output)
    assert shown_as_keys(header, set(json.loads(out.read_text())["rows"][0])) == []
    out = tmp_path / "coherence.json"
    output = run("bench", "coherence", data, "--public-share", "0.5", "--h", "1", "--k", "2", "--p", "2", "--seeds",
                 "1", "--json", out)
    body = json.loads(out.read_text())
    rows, summary = headers(output)
    assert shown_as_keys(rows, json_keys(body["rows"])) == [] and shown_as_keys(summary, json_keys(body["summary"])) == []


def test_a_share_is_shown_in_percent_under_its_key_and_percent(capsys):
    # rev65, mutation pass over core/bench.py _shown: the share itself under info_loss_% passed
    # every test not marked slow (bench rho's and sanitize's tables show one)
    from setveil.core.bench import print_table

    print_table([{"info_loss": 0.25}, {"info_loss": None}, {}], ["info_loss_%"])
    assert capsys.readouterr().out.splitlines() == ["| info_loss_% |", "|-------------|", "| 25          |",
                                                    "| n/a         |", "| n/a         |"]


def test_a_table_printed_row_by_row_keeps_its_columns_as_wide_as_their_headers():
    # bench stream prints each row as it is measured: its cells are padded to the headers, and a
    # longer one widens its own row alone (rev65: rows and header left unpadded passed every test
    # not marked slow)
    from setveil.core.bench import table_printer

    lines: list[str] = []
    print_row = table_printer(["window", "info_loss_%", "rejected"], lines.append)
    print_row({"window": 300, "info_loss": 0.5, "rejected": 0})
    print_row({"window": 123456789, "info_loss": None, "rejected": 2})
    assert lines == ["| window | info_loss_% | rejected |",
                     "|--------|-------------|----------|",
                     "| 300    | 50          | 0        |",
                     "| 123456789 | n/a         | 2        |"]
