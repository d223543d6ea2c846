"""tail run before any worker created its topics: it stops in one line naming the topic, the
setting that names it and who creates it, rather than wait for batches that cannot come."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("args, what, setting", [((), "output", "topics.output"),
                                                 (("--dead-letters",), "dead-letter", "topics.dlq")],
                         ids=["batches", "dead-letters"])
def test_tail_of_a_topic_no_worker_created_names_it_and_its_setting(make_settings, args, what, setting):
    settings = make_settings()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SETVEIL_")} | settings.as_env()
    result = subprocess.run([sys.executable, "-m", "setveil", "tail", "--idle", "1", *args], capture_output=True,
                            text=True, env=env, timeout=120)
    topic = settings.topics.output if what == "output" else settings.topics.dlq
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        f"setveil: error: the {what} topic {topic} does not exist yet ({setting}; a worker creates it)")
