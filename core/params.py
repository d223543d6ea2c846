"""Declared, validated parameters for models and policies.

Every parameter is parsed and range-checked before any data is read; errors name the
parameter and the allowed range.
"""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from typing import Any, Literal, get_args

from .errors import ParameterError


class _Required(Enum):
    # an enum member, so that a pickled Parameter (a model sent to a window's process) stays required
    REQUIRED = "required"


REQUIRED: Any = _Required.REQUIRED

Kind = Literal["float", "int", "str", "choice", "path", "bool"]
KINDS: tuple[str, ...] = get_args(Kind)


def written_plainly(text: str) -> bool:
    """Whether a number's text uses ASCII alone and no ``_``: int() and float() also take 1_000
    and other scripts' digits (k=١ ran with k=1), and every number setveil reads, a parameter, an
    option or a list, is written plainly."""
    return text.isascii() and "_" not in text


#: a parameter whose name holds one of these may hold a secret: its value is shown in no log,
#: settings text or error
SECRET_WORDS = ("password", "secret", "token")


def names_a_secret(name: str) -> bool:
    """Whether a parameter named ``name`` may hold a secret (:data:`SECRET_WORDS`, in any case)."""
    return any(word in name.lower() for word in SECRET_WORDS)


#: what a log, a batch, a report or a verdict shows for the value of a parameter named like a secret
MASKED = "***"


def shown_value(name: str, value: Any) -> Any:
    """``value`` as parameter ``name`` is shown outside the run: :data:`MASKED` when the name says
    it may be a secret (a value not given, None, stays None: nothing is hidden)."""
    return MASKED if value is not None and names_a_secret(name) else value


def as_typed(value: Any) -> str:
    """A parameter's value in the shortest text that -P takes for it: ``true`` for a flag, and a
    float as its shortest decimal without a whole number's ``.0`` (QA: ``h=1.0`` for a typed
    ``h=1``, ``psi=0.0`` for ``psi=0``). It is the decimal typed but for zeros at its end, as a
    float's parameter takes no decimal its float does not hold exactly
    (:func:`float_not_as_typed`)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(value).removesuffix(".0")
    return str(value)


#: a NAME=VALUE inside a value, after a comma or a blank: the service's ``model.params`` syntax
#: (``m=2,api_token=x``) typed into one ``-P``, where it is all the first parameter's value
_ANOTHER_PARAMETER = re.compile(r"[,\s]+([^\s,=]+)\s*=")
#: a word of a value, between the separators of NAME=VALUE pairs (and ``:``, which
#: :func:`pair_refused` cuts at), with the ``=`` or ``:`` that may follow it
_WORD = re.compile(r"([^\s,:=]+)\s*[=:]?")
#: how an :class:`AnotherParameterInside` advises giving the parameters, in the command line's
#: terms: the service says it in those of the setting's source instead (streams.settings.one_pair_each)
ONE_PAIR_EACH = "give each parameter its own NAME=VALUE (-P takes one each)"


class AnotherParameterInside(ParameterError):
    """A refused value that holds what looks like another parameter: ``found`` says so, and the
    advice that follows it is the command line's, which a caller that knows where the value was
    set words for that source instead."""

    def __init__(self, name: str, found: str):
        self.found = found
        super().__init__(name, f"{found}: {ONE_PAIR_EACH}")


def holds_another_parameter(raw: str) -> str | None:
    """Why ``raw``, a refused value, may hold another parameter, or None.
    The text is quoted up to the first parameter named like a secret inside it, whose value and
    whatever follows it (it may hold a comma) show as :data:`MASKED` (QA: ``-P
    m=2,api_token=hunter2`` was refused quoting ``'2,api_token=hunter2'``). A secret's name that is a
    word of its own (an identifier, as a parameter's name is; a path is none) counts too, with no
    ``=`` after it (QA: ``-P "m=2 api_token hunter2"`` was quoted whole) or first in the value
    (``-P m=api_token=hunter2``)."""
    others = list(_ANOTHER_PARAMETER.finditer(raw))
    secrets = [(m.start(1), m.end(), m.group(1)) for m in others if names_a_secret(m.group(1))]
    # a name last in the value has nothing after it to hide, and is no sign of another parameter
    secrets += [(m.start(), m.end(), m.group(1)) for m in _WORD.finditer(raw)
                if m.group(1).isidentifier() and names_a_secret(m.group(1)) and m.end() < len(raw)]
    if not others and not secrets:
        return None
    shown, names = raw, [m.group(1) for m in others]
    if secrets:
        start, end, secret = min(secrets)
        shown = raw[:end] + MASKED
        names = [m.group(1) for m in others if m.start(1) < start] + [secret]
    return f"got {shown!r}, which holds what looks like another parameter ({', '.join(names)})"


@dataclass(frozen=True)
class Parameter:
    """One parameter: ``kind`` says how raw text is parsed; bounds and choices say what is allowed.

    ``choices`` on a numeric parameter lists extra literal values that are allowed as well
    (for example ``qid_size=all``).
    """

    name: str
    help: str
    kind: Kind = "float"
    default: Any = REQUIRED
    low: float | None = None
    high: float | None = None
    low_inclusive: bool = True
    high_inclusive: bool = True
    choices: tuple[str, ...] = field(default_factory=tuple)
    #: whether the model's checker reads it (the guarantee depends on it); False for a parameter
    #: that only steers the algorithm or the metrics, which `verify` then leaves out of its verdict
    checked: bool = True

    @property
    def required(self) -> bool:
        """Whether the parameter has no default, so that every run must give it."""
        return self.default is REQUIRED

    def default_value(self) -> Any:
        """The value a run gets when the parameter is not given: the default parsed as a given
        value is (a bool's default "false" would otherwise reach the model as a string, which is
        true; QA), except a path's, which may name a file made later, and None, "not given". The
        registry has checked that the default parses."""
        if self.default is None or self.kind == "path":
            return self.default
        return self.parse(self.default)

    def allowed(self, in_64_bits: bool = False) -> str:
        """Human-readable allowed range, e.g. ``(0, 1]`` or ``one of mm-il, mm``. ``in_64_bits``:
        an int's open ends as the 64-bit integer's, the bounds :meth:`parse` holds it to."""
        if self.kind in ("choice",):
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.kind in ("str", "path"):
            return "a path" if self.kind == "path" else "text"
        noun = "an integer" if self.kind == "int" else "a number"
        if in_64_bits and self.kind == "int":
            low = -(2**63) if self.low is None or self.low < -(2**63) else self.low
            high = 2**63 - 1 if self.high is None or self.high > 2**63 - 1 else self.high
            opening = "[" if self.low_inclusive or low != self.low else "("
            closing = "]" if self.high_inclusive or high != self.high else ")"
            text = f"{noun} in {opening}{_fmt(low)}, {_fmt(high)}{closing}"
        elif self.low is None and self.high is None:
            text = noun
        else:
            low_finite = self.low is not None and math.isfinite(self.low)
            high_finite = self.high is not None and math.isfinite(self.high)
            lo = _fmt(self.low) if self.low is not None and low_finite else "-inf"
            hi = _fmt(self.high) if self.high is not None and high_finite else "inf"
            # an open or infinite end is never included: numbers are finite
            opening = "[" if self.low_inclusive and low_finite else "("
            closing = "]" if self.high_inclusive and high_finite else ")"
            text = f"{noun} in {opening}{lo}, {hi}{closing}"
        if self.choices:
            text += " or " + " or ".join(self.choices)
        return text

    def parse(self, raw: Any) -> Any:
        """The value a run gets for ``raw`` (text from the command line or the settings, or a
        typed value), checked against the kind, the bounds and the choices; anything else is a
        :class:`ParameterError` that names the parameter and what it allows. The error of a
        parameter named like a secret does not show the value (QA: ``api_token=hunter2`` for an
        integer said ``got 'hunter2'``); it says what is allowed instead."""
        try:
            return self._parse(raw)
        except ParameterError:
            if not names_a_secret(self.name):
                if isinstance(raw, str) and (found := holds_another_parameter(raw)):
                    raise AnotherParameterInside(self.name, found) from None
                raise
        what = ("the file given does not exist, cannot be reached or is standard input" if self.kind == "path"
                else f"the value given is not allowed; allowed: {self.allowed()}"
                + {"float": ", with at most 15 significant digits", "int": ", of 64 bits"}.get(self.kind, ""))
        raise ParameterError(self.name, f"{what} (the value is not shown: the name says it may be a secret)")

    def _parse(self, raw: Any) -> Any:
        if self.choices and isinstance(raw, str) and raw in self.choices:
            return raw
        if self.kind == "choice":
            raise ParameterError(self.name, f"got {raw!r}, allowed: {self.allowed()}")
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "false"):
                return text == "true"
            raise ParameterError(self.name, f"got {raw!r}, allowed: true or false")
        if self.kind == "str":
            return str(raw)
        if self.kind == "path":
            try:
                # as text: a bytes path reached the model, whose __init__ then failed as its own error
                # (library walkthrough)
                path = os.fsdecode(raw)
            except TypeError:  # a typed value, from the Python API, that is no path (5, a list)
                raise ParameterError(self.name, f"got {raw!r}, allowed: {self.allowed()}") from None
            if path == "-":
                # a parameter's file is read before the data, which may be standard input
                raise ParameterError(self.name, "standard input ('-') is not supported for this file; give a path")
            try:
                os.stat(path)
            except FileNotFoundError:
                raise ParameterError(self.name, f"file {path!r} does not exist") from None
            except OSError as exc:  # a folder on the way that cannot be entered, say
                raise ParameterError(self.name, f"file {path!r} cannot be reached: {exc.strerror}") from None
            return path
        return self._number(raw)

    def _number(self, raw: Any) -> float | int:
        if isinstance(raw, bool):
            raise ParameterError(self.name, f"got {raw!r}, allowed: {self.allowed()}")
        try:
            if isinstance(raw, str) and not written_plainly(raw):
                raise ValueError
            if self.kind == "int":
                if isinstance(raw, float) and not raw.is_integer():
                    raise ValueError
                value: float | int = int(raw) if not isinstance(raw, str) else int(raw.strip(), 10)
            else:
                value = float(raw) + 0.0  # -0.0 is zero, as an option's is (core.clitypes)
                if not math.isfinite(value):
                    raise ValueError
        except (TypeError, ValueError, OverflowError):
            # OverflowError: an int beyond a float's range, as a TOML file gives one to a float setting
            raise ParameterError(self.name, f"got {raw!r}, allowed: {self.allowed()}") from None
        within = self._within_bounds(value)
        # how a float holds the decimal matters only when it or the decimal is allowed: h=2**63 is
        # out of (0, 1], not a number with too many digits (QA: it was told to give it with at most
        # 15 significant digits, and the range went unnamed)
        if self.kind == "float" and isinstance(raw, str) and (within or self._within_bounds(Decimal(raw.strip()))) and (
                problem := float_not_as_typed(raw, value, suggest=within)):
            raise ParameterError(self.name, problem)
        if self.kind == "int" and within and not -(2**63) <= value < 2**63:
            # numpy and the C miners take 64-bit integers; a larger one would fail deep in a window.
            # The range named is the one that holds, not [1, inf) (QA: k=10**20 was told [1, inf))
            side = "larger" if value > 0 else "smaller"
            raise ParameterError(self.name, f"got {raw!r}, {side} than a 64-bit integer; "
                                            f"allowed: {self.allowed(in_64_bits=True)}")
        if not within:
            raise ParameterError(self.name, f"got {raw!r}, allowed: {self.allowed()}")
        return value

    def _within_bounds(self, value: int | float | Decimal) -> bool:
        if self.low is not None and (value < self.low or (value == self.low and not self.low_inclusive)):
            return False
        return self.high is None or value < self.high or (value == self.high and self.high_inclusive)


def float_not_as_typed(raw: str, value: float, suggest: bool = True) -> str | None:
    """Why the decimal ``raw`` cannot be taken as the float ``value`` it parses to, or None.
    ``suggest``: offer ``value`` itself in the advice (not when it is out of range: QA, rho
    0.99999999999999999 was told to give 1.0, which is refused).

    Thresholds are compared exactly as the float's shortest decimal (core.share): a longer
    decimal would be loosened silently (QA: rho=0.29999999999999999 released a rule of
    confidence 3/10 as safe). Decimal, not Fraction: 1e-99999999 as a Fraction computes
    10**99999999."""
    if Decimal(raw.strip()) == Decimal(repr(value)):
        return None
    held = f"got {raw!r}, which a float holds only as {value!r}, " + (
        "the value that would be used" if suggest else "which is not allowed")
    if abs(value) < sys.float_info.min:
        return f"{held}; it is too small for a float (the smallest normal one is {sys.float_info.min!r})"
    # 15 significant digits always survive a float; 16 or 17 survive only as its shortest repr
    return f"{held}; give it " + (f"as {value!r} or " if suggest else "") + "with at most 15 significant digits"


def validate(parameters: Sequence[Parameter], raw: Mapping[str, Any], owner: str) -> dict[str, Any]:
    """Parse ``raw`` against ``parameters``; unknown or missing names raise ParameterError."""
    known = {p.name: p for p in parameters}
    for name in raw:
        if name not in known:
            allowed = ", ".join(sorted(known)) or "none"
            raise ParameterError(name, f"{owner} has no such parameter (its parameters: {allowed})")
    out: dict[str, Any] = {}
    for p in parameters:
        if p.name in raw:
            out[p.name] = p.parse(raw[p.name])
        elif p.required:
            raise ParameterError(p.name, f"{owner} needs it ({p.help}; allowed: {p.allowed()})")
        else:
            out[p.name] = p.default_value()
    return out


def parse_assignments(pairs: Sequence[str]) -> dict[str, str]:
    """``["h=0.4", "k=20"]`` -> ``{"h": "0.4", "k": "20"}`` (the CLI's ``-P`` options)."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ParameterError(*pair_refused(pair))
        if name in out:
            raise ParameterError(name, given_more_than_once([name]))
        out[name] = value.strip()
    return out


def pair_refused(pair: str) -> tuple[str, str]:
    """The name and the problem of a refusal of ``pair``, given as NAME=VALUE but lacking the
    ``=`` or the name. Text that holds a secret's name is named by its first word alone (QA: ``-P
    api_token:hunter2`` was echoed whole): the rest may be the secret. A value without a name is
    not shown at all (QA: ``-P =hunter2`` was echoed whole): no name says it is not a secret."""
    name, sep, _ = pair.partition("=")
    if sep and not name.strip():
        return "", "the name before '=' is empty; expected NAME=VALUE (the value is not shown: it may be a secret)"
    if not names_a_secret(pair):
        return pair, "expected NAME=VALUE"
    word = re.match(r"[^\s,:=]*", pair.strip())
    assert word is not None  # the pattern matches the empty text
    return word.group() or MASKED, ("expected NAME=VALUE; the text given is not shown (it holds a name that says it "
                                    "may be a secret)")


def listed(name: str, text: str) -> list[str]:
    """The values of the comma-separated option ``name``, stripped of blanks. An empty value is a
    typo, refused as the integer lists and bench audit's are (QA: bench rho --rho 0.3,,0.5 ran two
    values of ρ, and bench coherence --policies '' ran no policy at all, each with exit status 0)."""
    values = [value.strip() for value in text.split(",")]
    if not all(values):
        raise ParameterError(name, f"{text!r} is not a comma-separated list (none of its values empty)")
    return values


def refuse_repeats(name: str, values: Sequence) -> None:
    """Refuse an option that lists a value more than once, naming the option and the values: a
    benchmark would measure such a value twice and merge the runs into one row."""
    repeated = repeats(values)
    if repeated:
        raise ParameterError(name, given_more_than_once(repeated))


def repeats(values: Sequence) -> list[str]:
    """The values that ``values`` lists more than once, each once, in order, as text."""
    return [v if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)
            for v in sorted({v for v in values if values.count(v) > 1})]


def given_more_than_once(repeated: Sequence[str]) -> str:
    """The one wording of every refusal of a value given twice (-P, and the options of lists)."""
    return f"{', '.join(repeated)} given more than once; give each once"


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
