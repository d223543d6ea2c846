"""The count of generalizations docs/partition.md says the benchmarks need is the largest AA
weighs on them, counted as its budget counts them."""

import re
from pathlib import Path

import pytest

import setveil.plugins.partition.apriori as apriori

from ..core.figure1 import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "partition.md"


@pytest.mark.slow
def test_the_benchmarks_largest_count_of_generalizations(datasets, tmp_path, monkeypatch):
    # a docs audit: the page gave 196,608, the product of the itemset's chains, where the budget (and
    # its refusal, 43,046,720 = 3^16 - 1) counts the choices that change something
    weighed: list[tuple[int, int]] = []
    check = apriori.within_budget

    def counting(count, budget, k, what):
        if budget == apriori.GENERALIZATION_BUDGET:
            weighed.append((count, int(re.search(r"a failing (\d+)-itemset", what).group(1))))
        return check(count, budget, k, what)

    monkeypatch.setattr(apriori, "within_budget", counting)
    result = run("anonymize", datasets / "BMS-WebView-2.dat", "-o", tmp_path / "out.dat", "--model", "km-anonymity",
                 "-P", "k=2", "-P", "m=161", "--fanout", "5", "--no-verify")
    assert result.exit_code == 0, result.output
    count, size = max(weighed)
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert f"The benchmarks need at most {count:,} (a {size}-itemset: BMS-WebView-2, k = 2, m = 161, f = 5)" in text
