"""A broker that does not answer is named with where kafka.bootstrap came from, as every refused
setting is: an operator who starts `setveil dev-broker` and gives `serve`, `replay` or `tail` a
settings file whose kafka.bootstrap names another cluster (deploy/setveil.toml's kafka:9092) is told
the file set it."""

from setveil.core.cli import cli

NOWHERE = "127.0.0.1:1"  # a port nothing listens on


def test_the_refusal_names_the_settings_file_the_variable_or_the_command_line(runner, tmp_path):
    # a review from an operator's seat, copying docs/operations.md's commands with deploy/setveil.toml:
    # 'no Kafka broker answers at kafka:9092 (kafka.bootstrap)' did not say the file had set it
    data = tmp_path / "in.dat"
    data.write_text("a b\n")
    config = tmp_path / "setveil.toml"
    config.write_text(f'[kafka]\nbootstrap = "{NOWHERE}"\n')
    for args, variable, source in ((["--config", str(config)], None, str(config)),
                                   ([], NOWHERE, "$SETVEIL_KAFKA_BOOTSTRAP"),
                                   (["--bootstrap", NOWHERE], None, "the command line")):
        for command in (["replay", str(data)], ["tail", "--idle", "1"]):
            result = runner.invoke(cli, [*command, *args], env={"SETVEIL_KAFKA_BOOTSTRAP": variable})
            assert result.exit_code == 1, result.output
            assert result.output == (f"setveil: error: no Kafka broker answers at {NOWHERE} "
                                     f"(kafka.bootstrap, from {source})\n")
