"""Figure 1 of Xu et al. (KDD'08) as a file, with the model settings the CLI tests run it under."""

from click.testing import CliRunner

from setveil.core.cli import _load_plugin_commands, cli

FIGURE_1 = "a c d f g Diabetes\na b c f Hepatitis\nb d f x Hepatitis\nb c g y z HIV\na c f g HIV\n"
PRIVATE = "Diabetes\nHepatitis\nHIV\n"
MODEL = ["--model", "coherence", "-P", "h=0.8", "-P", "k=2", "-P", "p=2"]


def run(*args, input=None):
    """The CLI in this process, on arguments that may be paths."""
    _load_plugin_commands()
    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)
