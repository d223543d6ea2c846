"""How ``setveil bench rho`` finds a dataset in its ``--datasets`` folder, and the policies it runs."""

import gzip

import pytest

from setveil.plugins.rho.bench import _load, dataset_file

from .test_cli import _bench_on_own_data, run

LINES = "1 2 3 4 5 6 \n2 3 4 5 6 7 \n1 3 5 7 9 11 \n"


def test_a_dataset_is_found_gzipped_as_connect_ships(tmp_path):
    # QA: bench rho --datasets /work/shared/datasets --dataset connect refused connect.dat as
    # "cannot read", where the folder has connect.dat.gz
    (tmp_path / "tiny.dat.gz").write_bytes(gzip.compress(LINES.encode()))
    assert dataset_file(tmp_path, "tiny") == tmp_path / "tiny.dat.gz"


def test_a_plain_dataset_is_found_first(tmp_path):
    (tmp_path / "tiny.dat").write_text(LINES)
    (tmp_path / "tiny.dat.gz").write_bytes(gzip.compress(LINES.encode()))
    assert dataset_file(tmp_path, "tiny") == tmp_path / "tiny.dat"


def test_a_missing_dataset_is_named_by_its_plain_file(tmp_path):
    assert dataset_file(tmp_path, "tiny") == tmp_path / "tiny.dat"


def test_the_cutoff_copy_of_a_gzipped_dataset_keeps_the_first_items_of_each_line(tmp_path):
    (tmp_path / "tiny.dat.gz").write_bytes(gzip.compress(LINES.encode()))
    data = _load(tmp_path, "tiny", 0.4, 0, 5)
    assert [sorted(items, key=int) for items in data.window] == [
        ["1", "2", "3", "4", "5"], ["2", "3", "4", "5", "6"], ["1", "3", "5", "7", "9"]]


@pytest.mark.parametrize("experiment", ["speed", "tmax", "bmax"])
def test_every_experiment_runs_the_policies_given_and_only_those(tmp_path, experiment):
    # a user walkthrough: --experiment speed --policy mine ran dist too, where the help said
    # "Policies to run"; speed, tmax and bmax ran dist and mine whatever --policy said
    options = {"speed": ["--speed-runs", "1"], "tmax": ["--t-max-values", "off"], "bmax": ["--b-max-values", "1000"]}
    body = _bench_on_own_data(tmp_path, experiment, "--policy", "global", *options[experiment])[1]
    assert [row["policy"] for row in body["rows"][experiment]] == ["global"]


def test_without_policy_the_experiments_run_the_policies_of_the_papers_figures(tmp_path):
    body = _bench_on_own_data(tmp_path, "speed", "--speed-runs", "1")[1]
    assert [row["policy"] for row in body["rows"]["speed"]] == ["dist", "mine"]
    body = _bench_on_own_data(tmp_path, "quality", "--rho", "0.7")[1]
    assert [row["policy"] for row in body["rows"]["quality"]] == ["mine", "dist", "global"]


def test_a_policy_given_twice_is_refused_whatever_the_experiment(tmp_path):
    (tmp_path / "mine.dat").write_text(LINES)
    result = run("bench", "rho", "--datasets", tmp_path, "--dataset", "mine", "--experiment", "speed",
                 "--policy", "mine,mine")
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        "setveil: error: parameter 'policy': mine given more than once; give each once")


@pytest.mark.parametrize("experiment, option, value, used_by", [
    ("speed", "--rho", "0.5", "quality or cutoff"), ("tmax", "--runs", "3", "quality or cutoff"),
    ("bmax", "--rule-support", "0.1", "quality or cutoff"), ("speed", "--rule-max-size", "all", "quality or cutoff"),
    ("quality", "--speed-runs", "1", "speed"), ("cutoff", "--t-max-values", "5", "tmax"),
    ("speed", "--b-max-values", "10", "bmax")])
def test_an_option_of_experiments_left_out_is_refused_before_reading(tmp_path, experiment, option, value, used_by):
    # a user walkthrough: --experiment speed --rho 0.5 ran speed at ρ = 0.7, and --experiment tmax
    # --runs 3 one run per setting, in silence
    (tmp_path / "mine.dat").write_bytes(b"a \xff\n")  # reading it first would be a different error
    result = run("bench", "rho", "--datasets", tmp_path, "--dataset", "mine", "--experiment", experiment,
                 option, value)
    assert result.exit_code == 2
    assert result.output.splitlines()[-1] == (
        f"setveil: error: parameter '{option[2:]}': {option} applies to {used_by} alone, which --experiment "
        f"leaves out: drop {option} or add the experiment")


@pytest.mark.parametrize("option, value, refused", [
    ("--workers", "0", "parameter 'workers': got '0', allowed: an integer in [1, 256] or auto"),
    ("--t-max", "x", "parameter 't_max': got 'x', allowed: a number in (0, inf) or off")])
def test_a_bad_base_setting_is_refused_where_the_experiment_sets_its_own(tmp_path, option, value, refused):
    # a user walkthrough: --experiment bmax, which runs one process and no split, ran with --workers 0
    # and --t-max x, which every other experiment refuses
    (tmp_path / "mine.dat").write_bytes(b"a \xff\n")  # reading it first would be a different error
    result = run("bench", "rho", "--datasets", tmp_path, "--dataset", "mine", "--experiment", "bmax", option, value)
    assert result.exit_code == 2 and result.output == f"setveil: error: {refused}\n"
