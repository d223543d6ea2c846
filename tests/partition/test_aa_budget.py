"""An analyst's deep hierarchy file past AA's budget of generalizations: the refusal says what
lowers that count (user walkthrough)."""

from setveil.plugins.partition.apriori import GENERALIZATION_BUDGET

from .hierarchy_files import anonymize_with_hierarchy

# a and b under one chain of one-child nodes: DA weighs each ancestor-or-self of a against each of
# b, 4,201 ** 2 - 1 generalizations, past the budget whatever the window
CHAIN = 4200


def test_generalizations_past_the_budget_ask_for_a_lower_m_or_fewer_levels_not_smaller_windows(tmp_path):
    assert (CHAIN + 1) ** 2 - 1 > GENERALIZATION_BUDGET
    lines = [f"c{level + 1},c{level}" for level in range(CHAIN - 1)] + [f"a,c{CHAIN - 1}", f"b,c{CHAIN - 1}"]
    # the 2-itemset {a, b} is held once, a and b twice each: at k=2 it fails in the smallest window
    result = anonymize_with_hierarchy(tmp_path, "a b\na\nb\n", "\n".join(lines) + "\n",
                                      "-m", "km-anonymity", "-P", "k=2", "-P", "m=2", name="deep.csv")
    assert result.exit_code == 1
    assert result.output == (
        "setveil: error: window 0 (transactions 0..2) rejected, nothing written: model error: mining at a "
        "support of 2 transactions would list up to 17,648,400 generalizations of a failing 2-itemset for AA to "
        "weigh (lower m, or give a hierarchy of fewer levels), more than the budget of 16,777,216\n")
    assert not (tmp_path / "out.dat").exists()


def test_a_chain_of_one_child_nodes_counts_each_node_in_the_budget(tmp_path):
    # docs/partition.md: 5 items under a file's chain of 20,000 one-child nodes fail at m = 2, each
    # chain node weighed though it covers the leaves its child covers; m = 1 is released
    chain = 20000
    lines = [f"n{level + 1},n{level}" for level in range(chain - 1)] + [f"i{item},n{chain - 1}" for item in range(5)]
    # each of the 10 pairs of the 5 items 4 times: every item held 16 times, every pair 4, below k=9
    pairs = [f"i{a} i{b}\n" for a in range(5) for b in range(a + 1, 5)]
    data, hierarchy = "".join(pairs * 4), "\n".join(lines) + "\n"
    model = ["-m", "km-anonymity", "-P", "k=9"]
    result = anonymize_with_hierarchy(tmp_path, data, hierarchy, *model, "-P", "m=2", name="chain.csv")
    assert result.exit_code == 1
    assert "would list up to 400,040,000 generalizations of a failing 2-itemset for AA to weigh" in result.output
    assert anonymize_with_hierarchy(tmp_path, data, hierarchy, *model, "-P", "m=1", name="chain.csv").exit_code == 0
