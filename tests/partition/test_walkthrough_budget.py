"""An analyst's deep hierarchy file past AA's budget of generalizations: the refusal says what
lowers that count (user walkthrough)."""

from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli
from setveil.plugins.partition.apriori import GENERALIZATION_BUDGET

# a and b under one chain of one-child nodes: DA weighs each ancestor-or-self of a against each of
# b, 4,201 ** 2 - 1 generalizations, past the budget whatever the window
CHAIN = 4200


def test_generalizations_past_the_budget_ask_for_a_lower_m_or_fewer_levels_not_smaller_windows(tmp_path):
    assert (CHAIN + 1) ** 2 - 1 > GENERALIZATION_BUDGET
    lines = [f"c{level + 1},c{level}" for level in range(CHAIN - 1)] + [f"a,c{CHAIN - 1}", f"b,c{CHAIN - 1}"]
    (tmp_path / "deep.csv").write_text("\n".join(lines) + "\n")
    # the 2-itemset {a, b} is held once, a and b twice each: at k=2 it fails in the smallest window
    (tmp_path / "data.dat").write_text("a b\na\nb\n")
    _load_plugin_commands()
    result = CliRunner().invoke(cli, ["anonymize", str(tmp_path / "data.dat"), "-o", str(tmp_path / "out.dat"),
                                      "-m", "km-anonymity", "-P", "k=2", "-P", "m=2",
                                      "--hierarchy", str(tmp_path / "deep.csv")])
    assert result.exit_code == 1
    assert result.output == (
        "setveil: error: window 0 (transactions 0..2) rejected, nothing written: model error: mining at a "
        "support of 2 transactions would list up to 17,648,400 generalizations of a failing 2-itemset for AA to "
        "weigh (lower m, or give a hierarchy of fewer levels), more than the budget of 16,777,216\n")
    assert not (tmp_path / "out.dat").exists()
