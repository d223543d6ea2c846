"""A message that is not msgpack is dead-lettered with its fault in words, as a file's record is
named (tests/core/test_format_errors.py), never only the class of msgpack's error: "not valid
msgpack (ValueError)" told neither a message cut short nor a length of 2**32 entries in a few
bytes from anything else."""

import msgpack
import pytest

from setveil.streams.codec import MessageRejected, decode_message

RECORD = msgpack.packb({"items": ["a", "b"]})


@pytest.mark.parametrize(
    "value, reason",
    [
        (RECORD[:-1], "truncated msgpack: the message ends inside a value"),
        (b"\xdb\xff\xff\xff\xff" + b"a" * 10, "truncated msgpack: the message ends inside a value"),
        (b"\xdf\xff\xff\xff\xff\xa5items", "the length of a map in the message runs past the end of the message"),
        (b"\x81\xa5items\xdd\xff\xff\xff\xff\xa1a",
         "the length of a list in the message runs past the end of the message"),
        (b"\xc9\xff\xff\xff\xff\x01", "the length of an extension in the message runs past the end of the message"),
        (b"\x91" * 10_000 + b"\x00", "msgpack nested too deeply"),
        (b"\x81\xa1a" * 10_000 + b"\x00", "msgpack nested too deeply"),
        (b"\x81\xa5items\x91\xa3\xed\xa0\x80", "a string in the message is not valid UTF-8"),
        (b"\xc1", "not msgpack: byte 0xc1, which msgpack reserves"),
        (b"\xd5\xff\x00\x00", "a msgpack timestamp of a length msgpack does not define (4, 8 or 12 bytes)"),
        (b"\xd7\xff\xee\x6b\x28\x00\x00\x00\x00\x05", "a msgpack timestamp whose nanoseconds are over 999,999,999"),
    ],
    ids=["cut", "string-past-end", "map-2**32", "list-2**32", "extension", "nested-lists", "nested-maps",
         "surrogate", "0xc1", "timestamp", "nanoseconds"],
)
def test_a_malformed_message_is_named_in_words(value, reason):
    with pytest.raises(MessageRejected) as info:
        decode_message(value, 1 << 20)
    assert (info.value.kind, info.value.reason) == ("malformed", reason)

