"""replay warns, by a count alone and before it sends anything, of subjects spelt like another but
for type, blanks or Unicode form, as anonymize --merge-subjects does: a worker under
window.merge_subjects compares subjects exactly, so one person's records, spelt two ways, are two
transactions counted twice towards k, and replay, which reads the whole file, said nothing."""

import json

from setveil.core.cli import cli

NO_BROKER = ["--bootstrap", "127.0.0.1:1"]
REFUSED = "setveil: error: no Kafka broker answers at 127.0.0.1:1 (kafka.bootstrap, from the command line)\n"


def test_replay_warns_of_subjects_spelt_apart_naming_none(runner, tmp_path):
    data = tmp_path / "visits.jsonl"
    subjects = ["Ann Lee", "Ann  Lee", 7, "7", " 7", "caf\u00e9", "cafe\u0301", "Bob"]
    data.write_text("".join(json.dumps({"subject": subject, "items": ["a"]}) + "\n" for subject in subjects))
    result = runner.invoke(cli, ["replay", str(data), *NO_BROKER])
    assert result.exit_code == 1
    assert result.stderr == (
        f"setveil: warning: {data}: 4 subjects spelt like another but for type, blanks or Unicode form (7 and \"7\", "
        "\" 7\" and \"7\", an NFC and an NFD \"é\"): subjects compare exactly, so a worker under "
        "window.merge_subjects merges each apart and its person counts twice towards k; give each person one "
        "spelling\n" + REFUSED)
    assert "Ann" not in result.stderr and "Bob" not in result.stderr


def test_replay_of_subjects_in_one_spelling_each_or_of_none_says_nothing_more(runner, tmp_path):
    data = tmp_path / "visits.jsonl"
    data.write_text("".join(json.dumps({"subject": subject, "items": ["a"]}) + "\n"
                            for subject in ["Ann", "ann", "Ann", 7, None]))  # case counts: aB and Ab may differ
    fimi = tmp_path / "in.dat"
    fimi.write_text("a b\nb c\n")
    for path in (data, fimi):
        result = runner.invoke(cli, ["replay", str(path), *NO_BROKER])
        assert result.exit_code == 1
        assert result.stderr == REFUSED


def test_replay_of_standard_input_names_it(runner):
    lines = "".join(json.dumps({"subject": subject, "items": ["a"]}) + "\n" for subject in ["7", "7 "])
    result = runner.invoke(cli, ["replay", "-", "--format", "jsonl", *NO_BROKER], input=lines)
    assert result.exit_code == 1
    assert result.stderr.startswith("setveil: warning: standard input: 1 subject spelt like another")
