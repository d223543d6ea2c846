"""Verifying a release with the item lists it was made with, as docs/coherence.md shows it."""

import re
from pathlib import Path

from ..core.figure1 import run

DOC = Path(__file__).resolve().parents[2] / "docs" / "coherence.md"
MODEL = ["--model", "coherence", "-P", "h=0.5", "-P", "k=2", "-P", "p=2"]


def first_commands() -> dict[str, str]:
    """The page's first shell block: each setveil command, its continuations joined, by name."""
    block = DOC.read_text(encoding="utf-8").split("```sh\n", 1)[1].split("```", 1)[0]
    return {line.split()[1]: line for line in block.replace("\\\n", " ").splitlines() if line.startswith("setveil ")}


def test_the_pages_verify_takes_the_item_lists_its_anonymize_does():
    # User walkthrough: the page's verify line had --sensitive alone beside anonymize's
    # [--public public.txt], and a release made with --public, verified as shown, failed
    commands = first_commands()
    lists = {name: set(re.findall(r"--(?:sensitive|public)\b", line)) for name, line in commands.items()}
    assert lists["anonymize"] == lists["verify"] == {"--sensitive", "--public"}


def test_a_release_made_with_public_fails_verify_without_it(tmp_path):
    # n is neutral with --public and held by one transaction: kept as it is, and a size-1 mole
    # (Sup < k) when verify, given no --public, counts every item not private as public
    data, private, public, out = (tmp_path / name for name in ("d.dat", "private.txt", "public.txt", "out.dat"))
    data.write_text("a b S\na b\na b S\na b n\n", encoding="utf-8")
    private.write_text("S\n", encoding="utf-8")
    public.write_text("a\nb\n", encoding="utf-8")
    made = run("anonymize", data, "-o", out, *MODEL, "--sensitive", private, "--public", public)
    assert made.exit_code == 0 and out.read_text() == data.read_text()
    both = run("verify", data, out, *MODEL, "--sensitive", private, "--public", public)
    assert both.exit_code == 0 and both.output == f"{out}: satisfies coherence (h=0.5, k=2, p=2)\n"
    alone = run("verify", data, out, *MODEL, "--sensitive", private)
    assert alone.exit_code == 1
    assert "violation: small-cohort: 1 public item has support below k=2; itemset {n}" in alone.output
