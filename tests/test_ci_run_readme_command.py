""".ci/run is README's second command, as README says ("what .ci/run runs"), on a fresh virtual
environment: the two drift apart unseen otherwise, since the suite never runs .ci/run itself."""

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CI = REPO / ".ci" / "run"


def test_ci_runs_the_readmes_test_command_in_a_fresh_virtual_environment():
    block = re.search(r"```sh\n(.*?)```", (REPO / "README.md").read_text(), re.S).group(1).splitlines()
    said = next(number for number, line in enumerate(block) if "(what .ci/run runs)" in line)
    commands = [line for line in CI.read_text().splitlines()
                if line and not line.startswith(("#", "set ", "cd "))]
    assert commands == ["rm -rf .venv", block[said + 1]]
    assert block[said + 1].endswith("&& .venv/bin/python -m pytest")
    assert os.access(CI, os.X_OK) and CI.read_text().startswith("#!/usr/bin/env bash\n")
    assert 'cd "$(dirname "$0")/.."' in CI.read_text()
