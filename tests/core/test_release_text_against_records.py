"""A release's FIMI, JSONL and msgpack text against ``json.dumps`` and ``msgpack.packb`` of its
records ``{tid, [tids], items}``, on windows over a vocabulary that holds labels the release does
not use (as a suppressed release's does), with text and integer tids, merged subjects, empty
transactions, labels JSON escapes, a leading U+FEFF, and more than one block of transactions."""

import gzip
import json
from unittest import mock

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core import formats
from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window

#: labels JSON escapes (quote, backslash, control characters), non-BMP text, U+2028, a leading U+FEFF
LABELS = ["a", "b", "7", "-3", "é", "\ufeffa", "🙂", "日本", 'q"', "b\\s", "x\ty", "x\x01y", "x\x7fy", "n y",
          "a\u2028b", "z\x1fz"]
TIDS = st.one_of(st.integers(-2**63, 2**64 - 1), st.text(min_size=1, max_size=4).filter(lambda t: "\0" not in t))
SUFFIX = {"fimi": "dat", "jsonl": "jsonl", "msgpack": "msgpack"}


def records(window, merged):
    for position in range(len(window)):
        items = [window.vocab.label(i) for i in window.row(position).tolist()]
        tids = None if merged is None else merged[position]
        yield ({"tid": window.tid(position), "items": items} if tids is None
               else {"tid": window.tid(position), "tids": list(tids), "items": items})


def expected_text(window, fmt, merged):
    if fmt == "fimi":
        rows = [record["items"] for record in records(window, merged)]
        mark = "\ufeff" if rows and rows[0] and rows[0][0].startswith("\ufeff") else ""
        return (mark + "".join(" ".join(row) + "\n" for row in rows)).encode("utf-8")
    if fmt == "jsonl":
        return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records(window, merged)).encode()
    return b"".join(msgpack.packb(record, use_bin_type=True) for record in records(window, merged))


@st.composite
def releases(draw):
    fmt = draw(st.sampled_from(formats.FORMATS))
    labels = [label for label in LABELS if fmt != "fimi" or formats.fimi_carries(label)]
    vocabulary = draw(st.permutations(labels))
    rows = draw(st.lists(st.lists(st.sampled_from(labels), unique=True, max_size=6), max_size=14))
    tids = draw(st.none() | st.lists(TIDS, min_size=len(rows), max_size=len(rows), unique=True))
    window = Window.from_transactions(rows, tids, vocab=Vocabulary(vocabulary))
    merged = None
    if fmt != "fimi" and draw(st.booleans()):
        merged = draw(st.lists(st.none() | st.lists(TIDS, min_size=1, max_size=3), min_size=len(rows),
                               max_size=len(rows)))
    return fmt, window, merged


@settings(max_examples=1000, deadline=None)
@given(release=releases(), rows=st.integers(1, 4), gzipped=st.booleans())
def test_a_release_is_the_dumps_or_packb_of_its_records(release, rows, gzipped):
    fmt, window, merged = release
    name = f"out.{SUFFIX[fmt]}" + (".gz" if gzipped else "")
    with mock.patch.object(formats, "_ROWS_AT_ONCE", rows):
        written = formats.render_window(window, name, fmt, merged_tids=merged)
    assert (gzip.decompress(written) if gzipped else written) == expected_text(window, fmt, merged)
