"""Every window's release is checked, whatever limits the pipeline runs under: each test kills
a hand-made mutant of Pipeline.run that skipped the check under a setting, which passed every
other not-slow test (mutation review of the fail-closed path)."""

from __future__ import annotations

from setveil.core.engine import Pipeline
from setveil.core.formats import read_window
from setveil.core.plugins import get_plugin_manager
from setveil.streams.processor import WindowProcessor

from .test_processor import _AddsAnItem, cut_of, processor, with_model


def test_a_window_anonymized_under_a_memory_limit_is_checked_too(sample):
    # mutant: `if self.verify and self.memory_limit is None:` emitted a release that adds an item
    # as a batch from the window process of model.memory_limit
    data, _, _ = sample
    broken = with_model(_AddsAnItem, processor(sample).pipeline.configured)
    pipeline = Pipeline(broken, get_plugin_manager(), memory_limit="model.memory_limit=512 MiB")
    outcome = WindowProcessor(pipeline, 3, False, "test").process("in", 0, cut_of(list(read_window(data))[:50]))
    assert not outcome.emitted and outcome.cause == "check-failed", outcome.reason
