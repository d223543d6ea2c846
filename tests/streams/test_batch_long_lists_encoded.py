"""A batch's list of transactions and each transaction's list of items take msgpack's one-byte
array header up to 15 entries, a three-byte one from 16 and a five-byte one from 65,536.
streams/codec.py encode_released writes those headers itself: at each bound, for the batch and
for a transaction, the bytes are those the straightforward encoding gives."""

import numpy as np
import pytest

from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window
from setveil.streams.codec import WindowRef, decode_batch, encode_batch, encode_released

REF = WindowRef("in", 0, 1, 3, 3, 1.0, 2.0)
MODEL = {"name": "coherence", "policy": "global", "parameters": {"h": 0.4}, "context": {}}
METRICS = {"transactions": 3}


def assert_straightforward(window: Window) -> bytes:
    fields = [{"tid": position} for position in range(len(window))]
    value = encode_released(REF, MODEL, True, METRICS, fields, window)
    assert value == encode_batch(REF, MODEL, True, METRICS,
                                 [{**extra, "items": items} for extra, items in zip(fields, window)])
    return value


@pytest.mark.parametrize("count", [15, 16, 17, 65_535, 65_536])
def test_a_batch_of_transactions_about_an_array_header_bound(count):
    window = Window.from_flat(Vocabulary(["a", "b"]), np.full(count, 1, np.int64),
                              np.arange(count, dtype=np.int32) % 2)
    value = assert_straightforward(window)
    assert len(decode_batch(value)["transactions"]) == count


@pytest.mark.parametrize("length", [15, 16, 17, 65_535, 65_536])
def test_a_transaction_of_items_about_an_array_header_bound(length):
    labels = [f"i{number}" for number in range(length)]
    window = Window.from_flat(Vocabulary(labels), np.array([length, 1, 0, length - 1], np.int64),
                              np.concatenate([np.arange(length), [0], np.arange(length - 1)]).astype(np.int32))
    value = assert_straightforward(window)
    assert [len(t["items"]) for t in decode_batch(value)["transactions"]] == [length, 1, 0, length - 1]
