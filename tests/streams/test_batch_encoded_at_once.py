"""A worker's batch is encoded with its transactions laid out with numpy (streams/codec.py
encode_released: each used label packed once, a head per transaction) where each transaction
was a map of its labels that the packer walked: whatever the release and what each transaction
carries besides its items, the bytes are those the straightforward encoding gives."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from setveil.core.vocabulary import Vocabulary
from setveil.core.window import Window
from setveil.streams import codec
from setveil.streams.codec import WindowRef, encode_batch, encode_released

LABELS = st.sampled_from(["a", "b", "é", "7", "x y", "\U0001f600", "a" * 40, "b" * 300, "c" * 70000])
TIDS = st.one_of(st.integers(-(2**63), 2**64 - 1), st.text(max_size=3), st.sampled_from(["0:1", "0:1:2", ""]))
EXTRA = st.one_of(
    TIDS.map(lambda tid: {"tid": tid}),
    st.lists(TIDS, min_size=1, max_size=3).map(lambda tids: {"tid": tids[0], "tids": tids}),
    st.dictionaries(st.text(max_size=2), TIDS, max_size=16),
    st.just({"items": ["x"], "tid": 1}),
)
REF = WindowRef("in", 1, 5, 9, 3, 1.5, 2.5)
MODEL = {"name": "coherence", "policy": "global", "parameters": {"h": 0.4, "k": 5}, "context": {"sensitive": "d"}}
METRICS = {"transactions": 3, "records": 4, "information_loss": 0.25, "loss_metric": None, "verify_seconds": 0.0}


@st.composite
def releases(draw):
    labels = draw(st.lists(LABELS, unique=True, max_size=8))
    rows = draw(st.lists(st.lists(st.integers(0, max(0, len(labels) - 1)), unique=True, max_size=len(labels)),
                         max_size=12))
    rows = [row if labels else [] for row in rows]
    window = Window.from_flat(Vocabulary(labels), np.array([*map(len, rows)], np.int64),
                              np.array([i for row in rows for i in row], np.int32))
    # the release's vocabulary may hold labels it no longer uses, and fields may outnumber transactions
    fields = draw(st.lists(EXTRA, min_size=max(0, len(rows) - draw(st.integers(0, 1))), max_size=len(rows) + 1))
    return window, fields


@settings(max_examples=400, deadline=None)
@given(releases(), st.booleans())
def test_a_batch_encoded_at_once_is_the_straightforward_bytes(release, verified):
    window, fields = release
    expected = encode_batch(REF, MODEL, verified, METRICS,
                            [{**extra, "items": items} for extra, items in zip(fields, window)])
    assert encode_released(REF, MODEL, verified, METRICS, fields, window) == expected


def test_the_common_batch_is_laid_out_with_numpy():
    """Tids beside items, as every unmerged window carries them, are laid out at once (not the
    straightforward encoding again)."""
    window = Window.from_transactions([["a", "b"], [], ["b", "c"]], [7, "t", 2**64 - 1])
    fields = [{"tid": 7}, {"tid": "t"}, {"tid": 2**64 - 1}]
    taken = []
    original = codec.encode_batch
    codec.encode_batch = lambda *args: taken.append(args) or original(*args)
    try:
        value = encode_released(REF, MODEL, True, METRICS, fields, window)
    finally:
        codec.encode_batch = original
    assert not taken
    assert codec.decode_batch(value)["transactions"] == [{"tid": 7, "items": ["a", "b"]}, {"tid": "t", "items": []},
                                                         {"tid": 2**64 - 1, "items": ["b", "c"]}]
