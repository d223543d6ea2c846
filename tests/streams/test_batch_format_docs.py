"""What docs/batch-format.md tells a consumer to install decodes every codec a worker may produce."""

import re
import tomllib
from pathlib import Path

from setveil.streams.settings import BY_NAME

REPO = Path(__file__).resolve().parents[2]
#: the codecs aiokafka decodes without an extra
BUILT_IN = {"none", "gzip"}


def _extras(requirement: str) -> set[str]:
    return set(re.fullmatch(r"aiokafka\[([a-z0-9,]+)\].*", requirement).group(1).split(","))


def test_the_consumers_aiokafka_extras_are_setveils_own_and_cover_every_codec():
    # QA: the doc said `pip install 'aiokafka[zstd]'`, whose cramjam is unpinned where aiokafka's
    # [lz4] extra pins cramjam>=2.8.0 (aiokafka 0.14's METADATA): a consumer with an older cramjam
    # could not be sure to decode an lz4 batch
    text = (REPO / "docs" / "batch-format.md").read_text()
    given = [_extras(found) for found in re.findall(r"pip install\s+'(aiokafka\[[^\]]*\][^']*)'", text)]
    assert given, "docs/batch-format.md names no aiokafka to install"
    requirements = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    own = [_extras(r) for r in requirements if r.startswith("aiokafka[")]
    codecs = set(BY_NAME["producer.compression"].parameter.choices) - BUILT_IN
    assert own == [codecs]
    assert all(extras == codecs for extras in given)
