"""``setveil bench run`` and ``bench windows`` name the seed their rows were drawn with, in the
header and in ``--json``, as ``bench rho`` does."""

import json

import pytest
from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli

from ..benchdata import small_transactions


@pytest.mark.parametrize("command", [["run", "--runs", "1"], ["windows", "--sizes", "20"]])
def test_a_benchmark_of_one_model_names_its_seed_in_its_header_and_its_json(tmp_path, command):
    # a user walkthrough: bench windows named the model's parameters and not the seed its windows
    # drew with, and neither its JSON nor bench run's held it
    data = small_transactions(tmp_path)
    (tmp_path / "sensitive.txt").write_text("1\n2\n")
    out = tmp_path / "bench.json"
    _load_plugin_commands()
    result = CliRunner().invoke(cli, ["bench", command[0], str(data), "-m", "coherence", "-P", "h=0.9", "-P", "k=2",
                                      "-P", "p=2", "--sensitive", str(tmp_path / "sensitive.txt"), "--seed", "7",
                                      *command[1:], "--json", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "h=0.9, k=2, p=2, il=support, seed 7; " in result.output.splitlines()[0]
    assert json.loads(out.read_text())["seed"] == 7
