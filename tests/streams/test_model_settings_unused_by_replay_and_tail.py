"""replay and tail run no model: ``--set model.…`` is refused before any broker is asked, as the demo
refuses one naming its own model, where it was taken in silence and a user could take replay for a
command that anonymizes; a shared config's or SETVEIL_MODEL_… variables' model settings stay unused
without a word, since the workers read the same ones."""

import pytest

from setveil.core.cli import cli

#: a port nothing listens on: a refusal made before the broker is asked never reaches it
NO_BROKER = ["--bootstrap", "127.0.0.1:1"]
SEND = "replay sends INPUT as it is"
READ = "tail reads what the workers wrote"


def refusal(name: str, command: str) -> str:
    return (f"setveil: error: parameter '{name}': {command} and runs no model, so --set cannot give it one: give "
            "the model to the workers (`setveil serve`)\n")


@pytest.mark.parametrize("setting", ["model.name=coherence", "model.params=h=0.4", "model.time_limit=60"])
def test_replay_refuses_a_model_setting_on_the_command_line(runner, tmp_path, setting):
    data = tmp_path / "in.dat"
    data.write_text("a b\nb c\n")
    result = runner.invoke(cli, ["replay", str(data), "--set", setting, *NO_BROKER])
    assert result.exit_code == 2
    assert result.output == refusal(setting.partition("=")[0], SEND)


@pytest.mark.parametrize("options", [[], ["--dead-letters"], ["--out", "{tmp}/release.dat"]])
def test_tail_refuses_a_model_setting_on_the_command_line(runner, tmp_path, options):
    options = [option.format(tmp=tmp_path) for option in options]
    result = runner.invoke(cli, ["tail", *options, "--set", "model.name=rho", *NO_BROKER])
    assert result.exit_code == 2
    assert result.output == refusal("model.name", READ)
    assert not (tmp_path / "release.dat").exists()


def test_the_model_settings_of_a_shared_config_and_the_environment_go_unused(runner, tmp_path):
    # the workers' ConfigMap and compose's variables hold them: replay and tail go on to the broker
    config = tmp_path / "setveil.toml"
    config.write_text('[model]\nname = "coherence"\nsensitive = "absent.txt"\n\n[model.params]\nh = 0.4\n')
    env = {"SETVEIL_MODEL_POLICY": "mine", "SETVEIL_MODEL_PUBLIC": "absent-too.txt"}
    data = tmp_path / "in.dat"
    data.write_text("a b\nb c\n")
    for args in (["replay", str(data)], ["tail", "--idle", "1"]):
        result = runner.invoke(cli, [*args, "--config", str(config), *NO_BROKER], env=env)
        assert result.exit_code == 1, result.output
        assert result.output == ("setveil: error: no Kafka broker answers at 127.0.0.1:1 "
                                 "(kafka.bootstrap, from the command line)\n")


def test_a_setting_of_another_section_is_taken(runner, tmp_path):
    data = tmp_path / "in.dat"
    data.write_text("a b\n")
    result = runner.invoke(cli, ["replay", str(data), "--set", "topics.input=elsewhere", *NO_BROKER])
    assert result.exit_code == 1
    assert result.output == ("setveil: error: no Kafka broker answers at 127.0.0.1:1 "
                             "(kafka.bootstrap, from the command line)\n")
