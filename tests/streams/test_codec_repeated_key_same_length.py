"""A message that repeats a key is refused even where packing it back gives as many bytes as it
has: a float32 packs back as a float64, four bytes longer, so floats packed as float32 can make up
for the pair the repeated key drops. Taken at once (streams/codec.py ``_at_once``), such a message
would keep the last value of the key, a tid or a field, in silence; its bytes, not their number,
vouch that no key repeats."""

import struct

import msgpack
import pytest

from setveil.streams import causes, codec
from setveil.streams.codec import MessageRejected, decode_message


def float32(value: float) -> bytes:
    return b"\xca" + struct.pack(">f", value)


def pack(value) -> bytes:
    return msgpack.packb(value)


def pairs(*packed: bytes) -> bytes:
    """A map of the key-value pairs given packed one after another."""
    return msgpack.Packer().pack_map_header(len(packed) // 2) + b"".join(packed)


#: each message's repeated key drops a pair as long as its float32s grow packed back
MESSAGES = {
    "a repeated tid": pairs(pack("items"), pack(["a"]), pack("other"), b"\x92" + float32(1.5) + float32(2.5),
                            pack("tid"), pack("abc"), pack("tid"), pack("xyz")),
    "a key repeated in a field's map": pairs(pack("items"), pack(["a", 7]), pack("ts"), float32(1.5),
                                             pack("other"), pairs(pack("kk"), pack(1), pack("kk"), pack(2))),
    "a repeated items": pairs(pack("items"), pack([7]), pack("other"), b"\x92" + float32(1.5) + float32(2.5),
                              pack("items"), pack(["bcd"])),
    "a repeated key in the second record": b"\x92" + pack({"items": ["a"], "tid": 1}) + pairs(
        pack("items"), pack(["b"]), pack("ts"), float32(0.5), pack("su"), pack(1), pack("su"), pack(2)),
}


@pytest.mark.parametrize("value", MESSAGES.values(), ids=MESSAGES.keys())
def test_a_repeated_key_packed_back_to_as_many_bytes_is_refused(value):
    assert len(msgpack.packb(msgpack.unpackb(value, strict_map_key=False))) == len(value)
    with pytest.raises(MessageRejected) as refused:
        decode_message(value, 1 << 20)
    assert (refused.value.kind, refused.value.reason) == (causes.INVALID, "a map repeats a key")
    with pytest.raises(MessageRejected) as one_by_one:
        codec._one_by_one(value)
    assert (one_by_one.value.kind, one_by_one.value.reason) == (refused.value.kind, refused.value.reason)
