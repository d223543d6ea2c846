"""A released transaction is a map of what it carries besides its items and its items: 15 entries
or fewer fit msgpack's one-byte map header, 16 or more take a longer one. streams/codec.py
encode_released lays out the short headers itself and leaves transactions with longer ones to
encode_batch: at every count of fields about that bound, and with transactions of both kinds in
one batch, the bytes are those the straightforward encoding gives."""

import pytest

from setveil.core.window import Window
from setveil.streams.codec import WindowRef, decode_batch, encode_batch, encode_released

REF = WindowRef("in", 0, 1, 3, 3, 1.0, 2.0)
MODEL = {"name": "coherence", "policy": "global", "parameters": {"h": 0.4}, "context": {}}
METRICS = {"transactions": 3}


def extra(entries: int, tid) -> dict:
    return {"tid": tid, **{f"f{number}": number for number in range(1, entries)}}


@pytest.mark.parametrize("entries", [1, 13, 14, 15, 16, 17])
def test_fields_about_the_one_byte_map_header_encode_as_the_straightforward_bytes(entries):
    window = Window.from_transactions([["a", "b"], [], ["b"]], [1, 2, 3])
    for fields in ([extra(entries, tid) for tid in (1, 2, 3)], [{"tid": 1}, extra(entries, 2), {"tid": 3}]):
        value = encode_released(REF, MODEL, True, METRICS, fields, window)
        assert value == encode_batch(REF, MODEL, True, METRICS,
                                     [{**fields[i], "items": items} for i, items in enumerate(window)])
        assert [len(t) for t in decode_batch(value)["transactions"]] == [len(f) + 1 for f in fields]
