"""Every reference between README.md and docs/*.md leads somewhere: a link's file exists and its
#anchor is a heading of that file as GitHub names it, and a section a doc names in quotes after
another doc's name (docs/operations.md, "Bad input") is a heading or a bold paragraph title there.

A reader follows these; a section renamed or moved leaves them pointing at nothing, which no
other test would notice."""

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

FENCE = re.compile(r"^\s*```")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
LINK = re.compile(r"\]\(([^()\s]+)\)")
#: a doc named and then one of its sections in quotes: `docs/operations.md, "Bad input"`,
#: `([partition](partition.md), "Hierarchies")`, `docs/rho.md ("Memory of a window")`
NAMED_SECTION = re.compile(r"\b([a-z-]+\.md)\)?,? \(?\"([^\"]+)\"")
#: and without quotes after a link, up to the bracket that closes it:
#: `([Operations](operations.md), One setting's time and memory)`
LINKED_SECTION = re.compile(r"\]\(([a-z-]+\.md)\), ([A-Z][^()\"]+)\)")


def prose(path: Path) -> list[str]:
    """The file's lines outside code blocks (a `#` there is a shell comment, not a heading)."""
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, blanks '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found, seen = set(), {}
    for line in prose(path):
        if match := HEADING.match(line):
            name = slug(match.group(2))
            found.add(name if name not in seen else f"{name}-{seen[name]}")
            seen[name] = seen.get(name, 0) + 1
    return found


def titles(path: Path) -> set[str]:
    """Headings and bold paragraph titles (`**Window latency**`, `- **Fenced: a paused worker …**`),
    each also up to its first ':' or '(' so that a reference may name it short."""
    text = "\n".join(prose(path))
    whole = [m.group(2) for m in map(HEADING.match, prose(path)) if m]
    whole += re.findall(r"\*\*([^*]+?)\.?\*\*", text)
    return {short.strip() for title in whole for short in (title, re.split(r"[:(]", title)[0])}


def links() -> list[tuple[str, Path, str]]:
    return [(f"{doc.relative_to(REPO)}:{target}", doc, target)
            for doc in DOCS for line in prose(doc) for target in LINK.findall(line)
            if not target.startswith(("http://", "https://", "mailto:"))]


def named_sections() -> list[tuple[str, Path, str]]:
    found = []
    for doc in DOCS:
        text = " ".join(prose(doc))
        for name, section in NAMED_SECTION.findall(text) + LINKED_SECTION.findall(text):
            section = " ".join(section.split())  # a quote may run over a line break
            found.append((f"{doc.relative_to(REPO)}: {name}, {section!r}", REPO / "docs" / name, section))
    return found


def test_the_docs_hold_links_and_named_sections():
    # the extraction must keep finding them (49 links and 18 named sections on 2026-12-07)
    assert len(links()) >= 40 and len(named_sections()) >= 15


@pytest.mark.parametrize("where,doc,target", links(), ids=[where for where, _, _ in links()])
def test_every_link_leads_to_a_file_and_a_heading(where, doc, target):
    path, _, anchor = target.partition("#")
    linked = (doc.parent / path).resolve() if path else doc
    assert linked.exists(), f"{where}: no such file"
    if anchor and linked.suffix == ".md":
        assert anchor in anchors(linked), f"{where}: no heading has this anchor"


@pytest.mark.parametrize("where,doc,section", named_sections(), ids=[where for where, _, _ in named_sections()])
def test_every_section_named_in_another_doc_is_there(where, doc, section):
    assert doc.exists(), f"{where}: no such doc"
    assert section in titles(doc), f"{where}: {doc.name} has no heading or bold title {section!r}"
