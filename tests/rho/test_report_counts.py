"""What rho's report counts, held to docs/rho.md on windows small enough to count by hand
(an analyst's walkthrough of the report's keys)."""

import pytest

from ..report_keys import anonymized_report, described
from .rho_reference import unsafe_rules

# three records hold b, s and t, five hold a alone: at ρ 0.5 the free qids {b}, {s} and {t} are
# unsafe through four rules (b -> s, b -> t, s -> t, t -> s, each 3/3), and the empty qid is safe
# (3/8); {b, s} and {b, t} have the cover of {b}, so they are no qid of their own
BOTH = "b s t\n" * 3 + "a\n" * 5


def report(tmp_path, policy: str) -> tuple[dict, list[set[str]]]:
    transactions, sensitive = tmp_path / "data.dat", tmp_path / "sensitive.txt"
    transactions.write_text(BOTH)
    sensitive.write_text("s\nt\n")
    body = anonymized_report(tmp_path, transactions, "--model", "rho", "-P", "rho=0.5", "--policy", policy,
                             "--sensitive", sensitive, "-P", "rule_metrics=false", "-P", "workers=1")
    return body, [set(line.split()) for line in (tmp_path / "out.dat").read_text().splitlines()]


def test_the_original_has_four_unsafe_rules_of_three_qids():
    rules = unsafe_rules([set(line.split()) for line in BOTH.splitlines()], {"s", "t"}, 0.5, 1)
    assert {(tuple(sorted(q)), e) for q, e in rules} == {(("b",), "s"), (("b",), "t"), (("s",), "t"), (("t",), "s")}


@pytest.mark.parametrize("policy", ["mine", "dist"])
def test_sanitized_rules_counts_the_policys_steps_not_every_rule_made_safe(tmp_path, policy):
    # b -> s and b -> t each need N_s = 2 deletions of their consequent; those four deletions make
    # s -> t and t -> s safe on the way, so two steps make four rules safe
    body, release = report(tmp_path, policy)
    stats = body["stats"]
    assert (stats["unsafe_qids"], stats["sanitized_rules"], stats["deletions"]) == (3, 2, 4)
    assert not unsafe_rules(release, {"s", "t"}, 0.5, 4)


def test_with_the_global_policy_sanitized_rules_counts_the_item_types_removed(tmp_path):
    body, release = report(tmp_path, "global")
    removed = {"a", "b", "s", "t"} - set().union(*release)
    assert removed == {"s", "t"}
    assert (body["stats"]["sanitized_rules"], body["stats"]["deletions"]) == (len(removed), 6)


def test_docs_rho_says_what_sanitized_rules_and_unsafe_qids_count():
    _, stats = described("rho.md", "`--report`'s `info_loss`")
    assert "`sanitized_rules` (the sanitizing steps: each is one unsafe rule made safe by deleting N_s" in stats
    assert "the rules those deletions make safe on the way are not counted" in stats
    assert "with the global policy it is the item types removed" in stats
    assert "a qid found unsafe again, by a buffer's re-check or a later pass, counts again" in stats
