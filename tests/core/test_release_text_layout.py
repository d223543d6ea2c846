"""A release's text is laid out with numpy, a block of transactions at a time, and joined at once.
Whatever the blocks, it is byte for byte what writing each transaction as its own record writes:
FIMI's labels joined by blanks, JSONL's encoded and msgpack's packed records of ``tid``, the
``tids`` merged into it, and ``items``."""

import json
from unittest import mock

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import formats
from setveil.core.window import Window

LABELS = ["a", "b", "7", "é", "\ufeffa", "日本", 'q"', "b\\s", "x\ty", "n y", "a\u2028b"]
TIDS = st.one_of(st.integers(-2**63, 2**64 - 1), st.text(min_size=1, max_size=4))


def record(window, position, labels, merged_tids):
    tids = None if merged_tids is None else merged_tids[position]
    if tids is None:
        return {"tid": window.tid(position), "items": labels}
    return {"tid": window.tid(position), "tids": list(tids), "items": labels}


def one_by_one(window, fmt, merged_tids):
    if fmt == "fimi":
        leading = window.labels(0) if len(window) else []
        mark = "\ufeff" if leading and leading[0].startswith("\ufeff") else ""
        return (mark + "".join(" ".join(labels) + "\n" for labels in window)).encode("utf-8")
    if fmt == "jsonl":
        encode = json.JSONEncoder(ensure_ascii=False).encode
        return b"".join((encode(record(window, position, labels, merged_tids)) + "\n").encode("utf-8")
                        for position, labels in enumerate(window))
    pack = msgpack.Packer(use_bin_type=True).pack
    return b"".join(pack(record(window, position, labels, merged_tids)) for position, labels in enumerate(window))


@st.composite
def releases(draw):
    fmt = draw(st.sampled_from(formats.FORMATS))
    labels = [label for label in LABELS if fmt != "fimi" or formats.fimi_carries(label)]
    transactions = draw(st.lists(st.lists(st.sampled_from(labels), unique=True, max_size=5), max_size=12))
    tids = draw(st.none() | st.lists(TIDS, min_size=len(transactions), max_size=len(transactions), unique=True))
    window = Window.from_transactions(transactions, tids)
    merged = None
    if fmt != "fimi" and draw(st.booleans()):
        merged = draw(st.lists(st.none() | st.lists(TIDS, min_size=1, max_size=3), min_size=len(window),
                               max_size=len(window)))
    return fmt, window, merged


@settings(max_examples=400, deadline=None)
@given(release=releases(), rows=st.integers(1, 5))
def test_a_release_is_written_as_its_records_one_by_one(release, rows):
    fmt, window, merged = release
    with mock.patch.object(formats, "_ROWS_AT_ONCE", rows):
        written = formats.render_window(window, f"out.{'dat' if fmt == 'fimi' else fmt}", fmt, merged_tids=merged)
    assert written == one_by_one(window, fmt, merged)
