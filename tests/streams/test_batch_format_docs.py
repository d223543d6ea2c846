"""What docs/batch-format.md tells a consumer: what to install to decode every codec a worker may
produce, and its Python example, run as written."""

import asyncio
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace

import msgpack
from aiokafka.codec import lz4_encode

from setveil.streams.causes import MESSAGE_KINDS, WINDOW_CAUSES
from setveil.streams.codec import (
    BATCH_TYPE,
    REJECTED_RECORD_TYPE,
    REJECTED_WINDOW_TYPE,
    WindowRef,
    cloudevents_headers,
    encode_batch,
)
from setveil.streams.deadletters import DeadLetters, read_dead_letter, take
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


#: the kafkajs codec the Compression bullet names for each codec kafkajs lacks
KAFKAJS_CODECS = {"snappy": "`kafkajs-snappy`", "lz4": "`kafkajs-lz4`", "zstd": "`fzstd`"}


def test_the_compression_bullet_names_a_kafkajs_codec_for_each_and_why_not_lz4js():
    # walkthrough as a consumer in Node: the doc named no codec; lz4js 0.2.0 decoded 707 of the
    # 1,200 bytes of a frame with block checksums, and kafkajs failed the whole fetch naming no codec
    bullet = " ".join(_section("Value").split("\n- Compression.", 1)[1].split("\n\n", 1)[0].split())
    codecs = set(BY_NAME["producer.compression"].parameter.choices) - BUILT_IN
    assert set(KAFKAJS_CODECS) == codecs
    assert all(name in bullet for name in KAFKAJS_CODECS.values())
    assert "Not `lz4js` 0.2.0: it misreads LZ4 frames that carry block checksums, as the workers' do" in bullet
    # the workers produce through aiokafka, whose LZ4 frames set FLG's block checksum bit (0x10)
    frame = lz4_encode(b"hello world " * 100)
    assert frame[:4] == b"\x04\x22\x4d\x18" and frame[4] & 0x10


class _Consumer:
    """What the documented consumer asks of aiokafka's AIOKafkaConsumer, over given messages."""

    def __init__(self, messages, commits):
        self.messages, self.commits = messages, commits

    async def start(self):
        pass

    async def stop(self):
        pass

    async def commit(self):
        self.commits.append(len(self.commits))

    async def __aiter__(self):
        for message in self.messages:
            yield message


def _message(ref, ce_type=BATCH_TYPE, value=None):
    value = encode_batch(ref, {"name": "rho"}, True, {}, [{"tid": ref.first_offset, "items": []}]) if value is None \
        else value
    return SimpleNamespace(headers=cloudevents_headers(ce_type, ref.id, "setveil/g"), value=value)


def _documented_consumer(messages):
    """The windows the Python example of docs/batch-format.md yields from ``messages``, the
    commits it makes, and what it raised."""
    text = (REPO / "docs" / "batch-format.md").read_text()
    code = re.findall(r"```python\n(.*?)```", text.split("## Reading batches in Python", 1)[1], re.DOTALL)[0]
    namespace: dict = {}
    exec(compile(code, "batch-format.md", "exec"), namespace)
    commits: list = []
    namespace["AIOKafkaConsumer"] = lambda *topics, **options: _Consumer(messages, commits)

    async def read():
        got = []
        try:
            async for batch in namespace["batches"]("localhost:9092"):
                got.append(batch["window"]["id"])
        except RuntimeError as exc:
            return got, str(exc)
        return got, None

    got, error = asyncio.run(read())
    return got, len(commits), error


def _window(partition, first, last):
    return WindowRef("transactions", partition, first, last, last - first + 1, 1.0, 2.0)


def test_the_documented_consumer_drops_a_redelivered_window_and_commits_each_batch():
    # walkthrough as a consumer: on a real broker a killed worker re-delivered its 8 windows whole,
    # under the same ids, after later ones (A B A B); the example kept each once. Here, no broker.
    a, b, c = _window(0, 0, 4), _window(0, 5, 9), _window(1, 0, 4)
    messages = [_message(a), _message(c), _message(b), _message(a), _message(b), _message(_window(0, 10, 14))]
    got, commits, error = _documented_consumer(messages)
    assert got == ["transactions/0/0-4", "transactions/1/0-4", "transactions/0/5-9", "transactions/0/10-14"]
    assert (commits, error) == (4, None)


def test_the_documented_consumer_stops_before_a_batch_of_a_newer_version_and_commits_nothing_past_it():
    # the Versioning rule: stop, rather than skip and commit past batches it cannot read; a new
    # version may not be msgpack, so the type is read before the value (b"\xc1" is no msgpack)
    newer = _message(_window(0, 5, 9), "org.setveil.batch.v2", b"\xc1")
    got, commits, error = _documented_consumer([_message(_window(0, 0, 4)), newer, _message(_window(0, 10, 14))])
    assert (got, commits) == (["transactions/0/0-4"], 1)
    assert error == "unknown batch type 'org.setveil.batch.v2': upgrade this consumer"
    schema = _message(_window(0, 5, 9), value=msgpack.packb({"schema": "setveil.batch/2", "window": {}}))
    got, commits, error = _documented_consumer([schema])
    assert (got, commits, error) == ([], 0, "unknown batch schema 'setveil.batch/2': upgrade this consumer")


def _section(title: str) -> str:
    """The text of the section of docs/batch-format.md whose heading starts with ``title``."""
    sections = (REPO / "docs" / "batch-format.md").read_text().split("\n## ")
    return next(section for section in sections if section.startswith(title))


def test_the_dead_letters_name_every_cause_and_kind_and_the_versioning_says_what_an_unlisted_one_is():
    # walkthrough as a consumer: the doc listed the causes and kinds but not whether a consumer
    # meeting another (`overlap` came within version 1, debdeca) is to stop, as on a new ce_type
    dead_letters = " ".join(_section("Dead letters").split())
    named = set(re.findall(r"`([a-z-]+)`", dead_letters))
    assert set(WINDOW_CAUSES) <= named and set(MESSAGE_KINDS) <= named
    versioning = " ".join(_section("Versioning").split())
    assert "A consumer counts a `cause` or `setveil_kind` it does not know under its own value" in versioning
    assert "as `setveil tail --dead-letters` does" in versioning
    seen, out = set(), DeadLetters()
    for letter in (read_dead_letter({"ce_type": REJECTED_WINDOW_TYPE.encode(), "ce_id": b"in/0/0-9",
                                     "setveil_cause": b"quota", "setveil_reason": b"r"}, None),
                   read_dead_letter({"ce_type": REJECTED_RECORD_TYPE.encode(), "ce_id": b"in/0/10",
                                     "setveil_kind": b"encrypted", "setveil_reason": b"r"}, b"")):
        assert take(letter, seen, out)
    assert (out.windows, out.records, out.unknown) == ({"quota": 1}, {"encrypted": 1}, 0)
