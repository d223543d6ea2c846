"""The summary lines of replay and tail count one thing in the singular (QA: "1 patterns",
"1 itemsets", "1 transactions"), without a broker: what they produce and read is stubbed."""

from click.testing import CliRunner

from setveil.core.cli import cli
from setveil.streams import replay, tail


def test_replay_of_one_transaction_in_one_message_says_so(tmp_path, monkeypatch):
    async def produced(*_args):
        return replay.ReplayStats(transactions=1, messages=1, seconds=0.5)

    monkeypatch.setattr(replay, "replay", produced)
    data = tmp_path / "one.dat"
    data.write_text("a b\n")
    result = CliRunner().invoke(cli, ["replay", str(data), "--bootstrap", "127.0.0.1:1"], env={})
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("1 transaction in 1 message to ")


def test_tail_of_one_transaction_says_so(tmp_path, monkeypatch):
    async def collected(*_args, **_kwargs):
        return tail.Collected(windows=1, transactions=1)

    monkeypatch.setattr(tail, "collect", collected)
    monkeypatch.setattr(tail, "write_release", lambda *_args: 1)
    out = tmp_path / "release.dat"
    result = CliRunner().invoke(cli, ["tail", "--count", "1", "--out", str(out), "--bootstrap", "127.0.0.1:1"],
                                env={})
    assert result.exit_code == 0, result.output
    assert f"wrote 1 transaction to {out}\n" in result.stderr
