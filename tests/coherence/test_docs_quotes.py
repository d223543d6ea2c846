"""The window reasons docs/coherence.md quotes are the ones a window gets."""

import re
from pathlib import Path

import numpy as np
import pytest

from setveil.core.engine import Pipeline, window_rng
from setveil.core.errors import WindowRejected
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window
from setveil.plugins.coherence.policies import CoherencePolicy

from .test_budget import SCHEMA, wide

DOC = Path(__file__).resolve().parents[2] / "docs" / "coherence.md"


def quoted_reasons() -> list[str]:
    """Every `model error: …` the page quotes, its line breaks read as spaces."""
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    return re.findall(r"`(model error: [^`]+)`", text)


def matches(quote: str, reason: str) -> bool:
    """The quote with each … standing for any text, the whole reason."""
    return re.fullmatch(".*".join(re.escape(part) for part in quote.split("…")), reason) is not None


class ShortScores(CoherencePolicy):
    name = "short"
    summary = "one score whatever the candidates"

    def score(self, mm, il):
        return np.zeros(1)


def reason(configured, window) -> str:
    with pytest.raises(WindowRejected) as rejected:
        Pipeline(configured, get_plugin_manager()).run(window, window_rng(0, 0))
    return rejected.value.reason


def test_each_quoted_reason_is_one_a_window_gets():
    # Review: the page quoted a policy's short scores as "score returned shape (1,) for 3
    # candidates", where the reason names the type returned between the two
    registry = get_registry()
    short = registry.configure("coherence", None, {"h": "1", "k": "2", "p": "2"}, Context(schema=ItemSchema()))
    short.policy = ShortScores({})
    # a b, a c and b c are held by one transaction each: three size-2 moles over a, b and c
    reasons = [
        reason(short, Window.from_transactions([["a", "b"], ["a", "c"], ["b", "c"], ["a"], ["b"], ["c"]])),
        reason(registry.configure("coherence", None, {"h": "0.4", "k": "5", "p": "3"}, Context(schema=SCHEMA)),
               wide(2_000)),
    ]
    quotes = quoted_reasons()
    assert len(quotes) == 2
    for quote in quotes:
        assert any(matches(quote, got) for got in reasons), (quote, reasons)
