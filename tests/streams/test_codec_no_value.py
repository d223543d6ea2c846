"""decode_batch's reason for a message with no value: a tombstone (null) or zero bytes."""

from types import SimpleNamespace

import msgpack
import pytest

from setveil.streams.codec import decode_batch
from setveil.streams.released import ReleaseError
from setveil.streams.tail import _batch_of


@pytest.mark.parametrize("value, reason", [
    # msgpack refused None as a TypeError, which decode_batch took for a map key that is a list or a map
    (None, "not a setveil.batch/1 message: the value is null"),
    (b"", "not a setveil.batch/1 message: the value has no bytes"),
    (msgpack.packb({(1, 2): 0}), "not a setveil.batch/1 message: a map key is a list or a map"),
])
def test_a_message_without_a_batch_is_refused_with_its_reason(value, reason):
    with pytest.raises(ValueError) as refused:
        decode_batch(value)
    assert str(refused.value) == reason


def test_tail_stops_at_a_tombstone_in_one_line():
    # tail caught the TypeError msgpack raised for None; decode_batch now raises ValueError for it
    tombstone = SimpleNamespace(value=None, headers=None, topic="out", partition=1, offset=2)
    with pytest.raises(ReleaseError) as stopped:
        _batch_of(tombstone)
    assert str(stopped.value) == ("out/1/2 is not a setveil.batch/1 message (ce_type (none)): its value is null; "
                                  "tail stops rather than skip it")
