"""Option types shared by the commands of every plugin."""

from __future__ import annotations

import math

import click
from click.core import ParameterSource

from .formats import refuse_unreadable
from .output import check_output, names_standard_output, refuse_reading_standard_output, reserve_stdout
from .params import float_not_as_typed, given_more_than_once, repeats, written_plainly


def _plain(value, kind: str, param, ctx, number_type) -> None:
    """Refuse an option's number as -P refuses a parameter's (QA: --window ٣ ran with windows of
    3), and text that is no number with the range, as -P does (QA: click said "'1e3' is not a
    valid integer range", naming no range)."""
    if not isinstance(value, str):
        return
    if not written_plainly(value):
        number_type.fail(f"{value!r} is not {kind} written in ASCII digits", param, ctx)
    try:
        number_type._number_class(value)
    except ValueError:
        number_type.fail(f"{value!r} is not {kind} in the range {number_type._describe_range()}", param, ctx)


def _in_range(convert, value, param, ctx, number_type):
    """click's conversion and range check, naming a value out of range as typed: click names the
    converted value (QA: --h 1e309 was "inf is not in the range 0<x<=1", 1e-400 "0.0"). Text
    that is no number was refused by :func:`_plain` before, so a refusal here is the range's."""
    try:
        return convert(value, param, ctx)
    except click.BadParameter:
        if not isinstance(value, str):
            raise
        number_type.fail(f"{value} is not in the range {number_type._describe_range()}.", param, ctx)


class IntRange(click.IntRange):
    """``click.IntRange`` that takes ASCII digits alone."""

    def convert(self, value, param, ctx):
        _plain(value, "an integer", param, ctx, self)
        return _in_range(super().convert, value, param, ctx, self)


class FloatRange(click.FloatRange):
    """``click.FloatRange`` that takes ASCII digits alone and refuses nan: nan compares false
    with every bound, so click's own type lets it through to code that then fails far from the
    option that was wrong."""

    def convert(self, value, param, ctx):
        _plain(value, "a number", param, ctx, self)
        number = _in_range(super().convert, value, param, ctx, self)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number in the range {self._describe_range()}", param, ctx)
        # as -P values are (QA re-check: bench coherence --h 0.29999999999999999 ran at 0.3)
        if isinstance(value, str) and (problem := float_not_as_typed(value, number)):
            self.fail(problem, param, ctx)
        # -0.0 is zero, as the range admits it; numpy refuses it as a negative scale (QA: bench
        # sanitize quest --corruption-variance -0.0 ended in "ValueError: scale < 0")
        return number + 0.0


#: a seed: within 32 bits, as the ``model.seed`` setting. numpy reads a window's [seed, key] as
#: one list of 32-bit words, zero-padded, so a larger seed repeats another's draws (QA: seed
#: 2**32 drew for window 0 what seed 0 draws for window 1; earlier, --seed 2**64 ran as --seed
#: 0). Every command's seed takes this range, those seeding numpy directly too, so that a seed is
#: refused the same way everywhere
SEED_MAX = 2**32 - 1
SEED = IntRange(0, SEED_MAX)

#: an option a benchmark passes on as a model's integer parameter (bench coherence and bench
#: stream --k, --p, bench rho --qid-size): the parameter refuses more than 64 bits (core.params),
#: so the option's range says so, and a larger value is refused by the option's name (QA: --k
#: 2**63, which "x>=1" admitted, was refused as "parameter 'k'")
MODEL_COUNT = IntRange(1, 2**63 - 1)


def int_list(smallest: int, largest: int | None = None):
    """A click callback that reads a comma-separated option into distinct integers from
    ``smallest`` to ``largest`` (a repeated value would be measured twice and merged into one
    row); click names the option. A list of a model's parameter gives ``largest``, as
    :data:`MODEL_COUNT` does."""

    def parse(_ctx, _param, text: str) -> list[int]:
        try:
            if not written_plainly(text):
                raise ValueError
            # an empty value is a typo, refused as bench audit's lists refuse it (QA: -k 2,,5 ran
            # with k 2 and 5, and --sizes , was told it needs integers >= 1)
            values = [int(part) for part in text.split(",")]
        except ValueError:
            raise click.BadParameter(f"expected comma-separated integers, none of them empty, got {text!r}") from None
        if min(values) < smallest or (largest is not None and max(values) > largest):
            within = f">= {smallest}" if largest is None else f"in [{smallest}, {largest}]"
            raise click.BadParameter(f"expected integers {within}, got {text!r}")
        repeated = repeats(values)
        if repeated:
            raise click.BadParameter(given_more_than_once(repeated))
        return values

    return parse


def option_given(name: str) -> bool:
    """Whether the running command's parameter ``name`` was given (on the command line or by its
    environment variable), not left at its default: an option that a run would leave unused is
    refused only when given."""
    return click.get_current_context().get_parameter_source(name) not in (None, ParameterSource.DEFAULT)


def json_option(dest: str = "json_path", help: str = "Also write the rows as JSON here ('-' for stdout)."):
    """``--json FILE`` for a benchmark: the path is checked while the options are parsed, so a
    bad one fails before the benchmark runs rather than after."""
    return click.option("--json", dest, type=click.Path(dir_okay=False, allow_dash=True), callback=_writable, help=help)


def check_bench_files(path, inputs) -> None:
    """What a benchmark checks before it prints: a ``--json`` path that names a file the run
    reads (known only once the command's other options are parsed; the option's own check sees
    the path alone), and an input standard output is open on, which a benchmark would print rows
    into before it came to read it (QA: bench partition's and sanitize speed's did), and an
    input that is missing or a directory, which a benchmark of several inputs came to after
    printing the rows of those before it (QA: bench partition ok.dat missing.dat)."""
    if path is not None:
        check_output(path, "--json", inputs)
    for given in inputs:
        if given is not None:
            refuse_reading_standard_output(given)
            refuse_unreadable(given)


def keep_stdout_for_data(*paths) -> None:
    """When one of a command's output ``paths`` is standard output (``-``, or a name of it such as
    /dev/stdout), keep it for that data until the command ends (:func:`.output.reserve_stdout`):
    what the code run from here prints, in Python or from C, goes to standard error. Call it once
    the paths are checked, since /dev/stdout names standard error once the data has moved."""
    if any(path is not None and names_standard_output(path) for path in paths):
        click.get_current_context().call_on_close(reserve_stdout())


def _writable(ctx, param, value):
    if value is not None:
        check_output(value, "--" + param.opts[0].lstrip("-"))
        keep_stdout_for_data(value)
    return value
