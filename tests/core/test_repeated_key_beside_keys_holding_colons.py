"""A JSONL block is vouched for without a repeated key when its colons are those of its maps' keys
and of the strings it holds (core/formats.py ``_jsonl_blocks``, ``_colons_in_strings``): a key
holding a colon counts its own colon once, so that a map naming a field such as "ns:tag" does not
make up for the colon a repeated key's pair takes, in its own record or another of the block."""

import json

import pytest

from setveil.core.errors import InputError
from setveil.core.formats import read_window
from setveil.core.vocabulary import Vocabulary

REPEATED = '{"items": ["x"], "subject": 1, "subject": 2}'


def _refused(path) -> str:
    with pytest.raises(InputError) as info:
        read_window(path, "jsonl", Vocabulary())
    return str(info.value)


def test_a_key_holding_a_colon_beside_a_repeated_key_in_its_record(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"ns:tag": 1, "items": ["x"], "tid": 1, "tid": 2}\n')
    assert _refused(path) == f"{path}:1: an object repeats a key"


@pytest.mark.parametrize("before", [0, 1, 254])
def test_a_key_holding_a_colon_in_one_record_and_a_repeated_key_in_another_of_its_block(tmp_path, before):
    # the block's colons are counted together: the record with the key holding a colon is first,
    # the repeated key's record up to the block's last (256 records)
    path = tmp_path / "in.jsonl"
    lines = ['{"ns:tag": 1, "items": ["a"]}'] + [json.dumps({"items": [f"i{n}"]}) for n in range(before)] + [REPEATED]
    path.write_text("\n".join(lines) + "\n")
    assert _refused(path) == f"{path}:{before + 2}: an object repeats a key"


def test_keys_holding_colons_and_no_repeated_key_are_read(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text('{"ns:tag": "a:b", "items": ["x:y"], "tid": "t:1", "a::b": {"c:d": 1}}\n'
                    '{"items": ["x:y", "z"], "ns:tag": 2}\n')
    window = read_window(path, "jsonl", Vocabulary())
    assert window.tids == ["t:1", 1]
    assert [window.vocab.label(int(item)) for item in window.indices] == ["x:y", "x:y", "z"]


def test_keys_that_differ_only_in_an_escape_repeat_a_key(tmp_path):
    # "\u0069tems" is "items": no colon count tells them apart, the escape sends the line to the check
    path = tmp_path / "in.jsonl"
    path.write_text('{"items": ["a"]}\n{"items": ["x"], "\\u0069tems": ["y"]}\n')
    assert _refused(path) == f"{path}:2: an object repeats a key"
