"""README's "The service" block, run as written on a data.dat of 2,000 transactions: items split,
the embedded broker, a worker, replay, tail and verify, in that order, end with the release
verified.

Only the ports change, to free ones, so that the run takes no port another test or broker holds:
the block's 9092 and 6066, through SETVEIL_KAFKA_BOOTSTRAP and SETVEIL_WEB_PORT as a reader would
point the commands at them. The broker and the worker the block starts in the background are
stopped when it ends."""

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from setveil.streams.broker import free_port

from .test_docs_commands import REPO, code_block_after

SAMPLE = REPO / "streams" / "data" / "T10I4D100K-20k.dat.gz"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("curl") is None, reason="the block waits for the worker with curl, not installed here")
def test_the_readmes_service_example_runs_as_written_and_its_release_verifies(tmp_path):
    # Regression (docs audit): the block ran tail right after `serve &`, and with a small data.dat
    # tail began before the worker had created the output topic and stopped, exit 1
    lines = gzip.decompress(SAMPLE.read_bytes()).decode().splitlines(keepends=True)
    (tmp_path / "data.dat").write_text("".join(lines[:2000]))
    broker, web = free_port(), free_port()
    block = code_block_after(REPO / "README.md", "## The service")
    assert block.count("9092") == 1
    block = block.replace("9092", str(broker)).replace("6066", str(web))
    bin_dir = Path(sys.executable).parent
    env = {name: value for name, value in os.environ.items() if not name.startswith("SETVEIL_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", SETVEIL_KAFKA_BOOTSTRAP=f"127.0.0.1:{broker}",
               SETVEIL_WEB_PORT=str(web))
    script = "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT\n" + block
    result = subprocess.run(["bash", "-euc", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "service-release.dat: satisfies coherence (h=0.4, k=5, p=3)\n" in result.stdout
    assert len((tmp_path / "service-release.dat").read_text().splitlines()) == 2000
