"""Every `setveil ...` command line README.md and docs/*.md show parses against the command line.

A line is read as the shell would (continuations, comments, `&&`, pipes) and checked at one of
three depths:

- a reference (a group, or a command with nothing after it in the text: `setveil bench stream`'s
  columns): the command exists;
- a synopsis (a placeholder such as INPUT, N, `[--seed N]`, `…`): the command exists and has every
  option named;
- any other line is a command to run: click parses it (`make_context`, every value converted by
  its option's type), each `-P` is a parameter of the named model or policy in its range, and each
  `--set` and `SETVEIL_*` names a setting and gives it a value it accepts.

A span that names an option with its command alone (`anonymize --window N`) must name an option of
that command, and every SETVEIL_* word must be a setting's variable. Nothing is run: the files a
line names are created empty, in a folder of the test's own.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from setveil.core.cli import cli
from setveil.core.errors import SetveilError
from setveil.core.params import parse_assignments
from setveil.core.plugins import Registry
from setveil.streams import settings

from .own_plugins import own_plugin_manager, own_subcommands

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
EXAMPLE_PLUGIN = REPO / "examples" / "setveil-truncate" / "setveil_truncate.py"

#: what the docs show after `setveil` that is deliberately not a command to run, and why
NOT_COMMANDS = {
    "bench rho --datasets /path/to/datasets": "a placeholder for the reader's folder of the data",
}
#: SETVEIL_* words the docs show as examples of a misspelt variable, which is refused
MISSPELT_VARIABLES = {"SETVEIL_TOPIC_INPUT", "SETVEIL_WEBPORT"}
#: the counts on 2026-12-02 (201 commands, 96 of them parsed in full; 22 spans that name an option with
#: its command alone): an extraction that misses lines must fail, so a floor is lowered only with the
#: docs that lose a command
FLOOR_COMMANDS = 201
FLOOR_FULL = 96
FLOOR_OPTION_REFERENCES = 22

FENCE = re.compile(r"^\s*```")
INLINE = re.compile(r"`([^`]+)`")
SHELL_OPERATORS = re.compile(r"^[&|;<>()]+$")
ALTERNATIVES = re.compile(r"\[[^\[\]]* \| [^\[\]]*\]")


@dataclass(frozen=True)
class Shown:
    where: str  # file:line
    env: tuple[tuple[str, str], ...]
    argv: tuple[str, ...]  # after `setveil`
    in_block: bool = False  # a code block's line is a command to run, even with no arguments

    @property
    def text(self) -> str:
        return " ".join(self.argv)


def shown_lines(prose_only: bool = False) -> list[tuple[str, str, bool]]:
    """(file:line, text, whether in a code block) of every shell line in a code block and every inline span that calls
    setveil; an inline span may wrap a line of the Markdown. With ``prose_only``, every inline
    span instead."""
    found = []
    for path in DOCS:
        name = path.relative_to(REPO).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        prose = []
        in_block = False
        i = 0
        while i < len(lines):
            if FENCE.match(lines[i]):
                in_block = not in_block
            elif in_block:
                start, text = i, lines[i]
                while text.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text.rstrip()[:-1] + " " + lines[i].strip()
                if not prose_only and re.search(r"(^|[\s/])setveil\s+[a-z]", text):
                    found.append((f"{name}:{start + 1}", text.strip(), True))
            else:
                prose.append((i + 1, lines[i]))
            i += 1
        offsets, joined = [], ""
        for number, line in prose:
            offsets.append((len(joined), number))
            joined += line + "\n"
        for match in INLINE.finditer(joined):
            text = " ".join(match.group(1).split())
            if text and (prose_only or re.match(r"(SETVEIL_\w+=\S*\s+)*setveil\s+[a-z]", text)):
                number = max(n for offset, n in offsets if offset <= match.start())
                found.append((f"{name}:{number}", text, False))
    return found


def option_references() -> list[tuple[str, str]]:
    """(file:line, text) of the inline spans that name a command's option without `setveil`
    (`anonymize --window N`, `bench audit --noise`)."""
    commands = own_subcommands(cli)
    found = []
    for where, text, _ in shown_lines(prose_only=True):
        words = text.split()
        if words[0] in commands and any(word.startswith("-") for word in words[1:]):
            found.append((where, text))
    return found


def commands_in(where: str, text: str, in_block: bool = False) -> list[Shown]:
    """The setveil commands of one shell line. A table cell's `setveil audit rename \\| publish`
    names alternatives: one command each."""
    if "\\|" in text:
        first, *others = (part.split() for part in text.split("\\|"))
        return [Shown(where, (), tuple(first[1:]))] + [Shown(where, (), tuple(first[1:-1] + other)) for other in others]
    # a synopsis's `[--hierarchy F | --fanout N]` names alternative options, not a pipe: each is
    # checked as an option of its own, wherever the synopsis places it
    text = ALTERNATIVES.sub(lambda found: "] [".join(found.group(0).split(" | ")), text)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    segments: list[list[str]] = [[]]
    for token in lexer:
        if SHELL_OPERATORS.match(token):
            segments.append([])
        else:
            segments[-1].append(token)
    commands = []
    for segment in segments:
        env = []
        while segment and re.match(r"[A-Z_][A-Z0-9_]*=", segment[0]):
            env.append(tuple(segment.pop(0).split("=", 1)))
        if segment and (segment[0] == "setveil" or segment[0].endswith("/setveil")):
            commands.append(Shown(where, tuple(env), tuple(segment[1:]), in_block))
    return commands


def shown_commands() -> list[Shown]:
    return [command for where, text, in_block in shown_lines() for command in commands_in(where, text, in_block)]


def is_placeholder(token: str) -> bool:
    """INPUT, N, `[--seed N]`, `…`, `"$(wc -l < data.dat)"`: what the reader fills in."""
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", token) or re.search(r"[\[\]|…$]|\.\.\.", token))


def resolve(argv: tuple[str, ...]) -> tuple[click.Command, list[str], list[str]]:
    """The setveil command `argv` names, its path and the arguments after it."""
    command: click.Command = cli
    path: list[str] = []
    rest = list(argv)
    while isinstance(command, click.Group) and rest and not is_placeholder(rest[0]):
        sub = own_subcommands(command).get(rest[0])
        if sub is None:
            raise LookupError(f"no command `setveil {' '.join([*path, rest[0]])}`")
        command, path, rest = sub, [*path, rest[0]], rest[1:]
    if isinstance(command, click.Group):
        rest = []
    return command, path, rest


def depth(command: click.Command, rest: list[str], in_block: bool = False) -> str:
    if not rest and (isinstance(command, click.Group) or not in_block):
        return "reference"
    return "synopsis" if any(is_placeholder(token) for token in rest) else "full"


def check(shown: Shown, registry: Registry, folder: Path) -> str:
    """Raise if ``shown`` does not parse; return its depth."""
    known = {s.env: s for s in settings.SETTINGS}
    for name, value in shown.env:
        if name not in settings.OTHER_VARIABLES:
            if name not in known:
                raise LookupError(f"no setting has the variable {name}")
            known[name].parse(value, name, must_exist=False)
    command, path, rest = resolve(shown.argv)
    kind = depth(command, rest, shown.in_block)
    if kind == "synopsis":
        options = {"--help"} | {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        named = {token.strip("[]").split("=")[0] for token in rest if re.match(r"\[*--?[A-Za-z]", token)}
        if named - options:
            raise LookupError(f"`setveil {' '.join(path)}` has no option {sorted(named - options)}")
    elif kind == "full":
        for token in rest:
            for value in (token, token.partition("=")[2]):
                if re.fullmatch(r"[\w.-]+\.[A-Za-z][A-Za-z0-9]*", value) and not value.startswith("-"):
                    (folder / value).touch()
        with command.make_context(" ".join(["setveil", *path]), list(rest), resilient_parsing=False) as ctx:
            params = ctx.params
            if params.get("model") is not None:
                raw = parse_assignments(params["params"])
                policy = params.get("policy")
                if path == ["verify"] and policy is None:
                    policy = registry.policy_for(params["model"], raw)  # as verify validates them
                registry.validate(params["model"], policy, raw)
            for pair in params.get("overrides") or ():
                name, _, value = pair.partition("=")
                settings._setting(name, "the docs").parse(value, "the docs", must_exist=False)
    return kind


def docs_registry() -> Registry:
    """setveil's own models and policies, and docs/plugins.md's example model, `truncate`: not an
    installed third party's, which the docs do not show (the example itself, installed, clashed)."""
    spec = importlib.util.spec_from_file_location("setveil_truncate", EXAMPLE_PLUGIN)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    manager = own_plugin_manager()
    manager.register(example)
    return Registry(manager)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return docs_registry()


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    """A folder to parse in: the files a line names are created here, and `bench rho` finds its
    datasets folder in $SETVEIL_DATASETS as README's "Benchmark data" sets it."""
    for name in [name for name in os.environ if name.startswith("SETVEIL_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("SETVEIL_DATASETS", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_shown_command_parses(registry, folder):
    failures, depths = [], {"reference": 0, "synopsis": 0, "full": 0}
    commands = shown_commands()
    for shown in commands:
        if shown.text in NOT_COMMANDS:
            continue
        try:
            depths[check(shown, registry, folder)] += 1
        except (click.ClickException, SetveilError, LookupError) as exc:
            message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
            failures.append(f"{shown.where}: setveil {shown.text}\n    {type(exc).__name__}: {message}")
    assert not failures, "\n".join(failures)
    assert len(commands) >= FLOOR_COMMANDS, f"only {len(commands)} commands found in the docs"
    assert depths["full"] >= FLOOR_FULL, f"only {depths['full']} commands parsed in full: {depths}"


def test_every_option_named_with_its_command_exists():
    unknown = []
    references = option_references()
    for where, text in references:
        command, path, rest = resolve(tuple(text.split()))
        options = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        unknown += [f"{where}: {text}" for word in rest if word.startswith("-") and word not in options]
    assert not unknown
    assert len(references) >= FLOOR_OPTION_REFERENCES, f"only {len(references)} found"


def test_not_commands_are_still_shown():
    texts = {shown.text for shown in shown_commands()}
    assert set(NOT_COMMANDS) <= texts, f"no longer in the docs: {sorted(set(NOT_COMMANDS) - texts)}"


def test_every_variable_named_is_a_setting():
    names = {s.env for s in settings.SETTINGS} | set(settings.OTHER_VARIABLES)
    unknown = []
    for path in DOCS:
        for word in set(re.findall(r"SETVEIL_[A-Z0-9_]*", path.read_text(encoding="utf-8"))):
            # SETVEIL_KAFKA_* and SETVEIL_<SECTION>_<KEY> name a family of variables
            fits = any(name.startswith(word) for name in names) if word.endswith("_") else word in names
            if not fits and word not in MISSPELT_VARIABLES:
                unknown.append(f"{path.name}: {word}")
    assert not unknown
    assert MISSPELT_VARIABLES.isdisjoint(names)


@pytest.mark.parametrize("line, problem", [
    ("setveil anonymise in.dat -o out.dat --model rho", "no command"),
    ("setveil anonymize in.dat -o out.dat --model rho --sensitve s.txt", "No such option"),
    ("setveil anonymize in.dat -o out.dat --model rho --window 0", "--window"),
    ("setveil anonymize in.dat -o out.dat --model rho -P rho=1.7 --sensitive s.txt", "rho"),
    ("setveil anonymize in.dat -o out.dat --model coherence -P rho=0.7", "no such parameter"),
    ("setveil verify in.dat out.dat --model sanitize -P restrictive=p.txt -P psi=2", "psi"),
    ("setveil serve --model coherence -P h=0.4 -P k=5 -P p=3 --set window.max_transaction=5", "did you mean"),
    ("setveil serve --set window.max_transactions=-1", "window.max_transactions"),
    ("SETVEIL_WINDOW_MAXSECONDS=1 setveil tail --idle 5", "SETVEIL_WINDOW_MAXSECONDS"),
    ("setveil items split INPUT --sensitive-shares 0.4", "--sensitive-shares"),
])
def test_the_check_refuses(registry, folder, line, problem):
    (shown,) = commands_in("test", line)
    with pytest.raises((click.ClickException, SetveilError, LookupError)) as caught:
        check(shown, registry, folder)
    exc = caught.value
    assert problem in (exc.format_message() if isinstance(exc, click.ClickException) else str(exc))


def test_lines_are_read_as_the_shell_reads_them():
    line = 'setveil dev-broker --port 9092 &   # SETVEIL_KAFKA_BOOTSTRAP otherwise'
    assert [s.argv for s in commands_in("t", line)] == [("dev-broker", "--port", "9092")]
    line = "printf 'a\\n' > x.dat && SETVEIL_CONFIG=c.toml .venv/bin/setveil tail --count \"$(wc -l < x.dat)\""
    (shown,) = commands_in("t", line)
    assert shown.env == (("SETVEIL_CONFIG", "c.toml"),) and shown.argv == ("tail", "--count", "$(wc -l < x.dat)")
    assert [s.text for s in commands_in("t", "setveil audit rename \\| publish …")] == ["audit rename", "audit publish …"]
    # a synopsis's alternatives in brackets are options, not a pipe into a second command
    synopsis = "setveil verify A B [--hierarchy F | --fanout N] [--windows W]"
    assert [s.argv for s in commands_in("t", synopsis, True)] == [
        ("verify", "A", "B", "[--hierarchy", "F]", "[--fanout", "N]", "[--windows", "W]")]


def code_block_after(path: Path, heading: str) -> str:
    """The first ```sh block after the line ``heading`` of ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == heading)
    opening = next(i for i in range(start, len(lines)) if FENCE.match(lines[i]))
    closing = next(i for i in range(opening + 1, len(lines)) if FENCE.match(lines[i]))
    return "\n".join(lines[opening + 1:closing])


def test_the_readmes_first_example_runs_as_written_and_releases_what_it_says(tmp_path):
    # the other lines are parsed, not run; this one, the first a reader copies, is run as
    # written, and its release is the one the text after it describes: "x, y and z go as size-1
    # moles, then d and b by the MM/IL greedy (Example 7)"; verify exits 0 naming the parameters
    block = code_block_after(REPO / "README.md", "## The command line")
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env = {name: value for name, value in env.items() if not name.startswith("SETVEIL_")}
    result = subprocess.run(["bash", "-euc", block], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    original = [line.split() for line in (tmp_path / "fig1.dat").read_text().splitlines()]
    released = [line.split() for line in (tmp_path / "release.dat").read_text().splitlines()]
    assert released == [[item for item in transaction if item not in {"x", "y", "z", "d", "b"}]
                        for transaction in original]
    assert result.stdout == "release.dat: satisfies coherence (h=0.8, k=2, p=2)\n"
    assert json.loads((tmp_path / "report.json").read_text())["verified"] is True
