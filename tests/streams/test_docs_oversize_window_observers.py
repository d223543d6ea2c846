"""docs/plugins.md and the hook specs tell observers that a service window whose release passed
its check, and was observed as anonymized, can still fail closed when its batch exceeds
producer.max_request_bytes: streams/app.py checks the batch's size after the pipeline has run
(and the anonymized observers with it), then rejects the window through the processor, whose
rejection observers are called too."""

import inspect
from pathlib import Path

from setveil.core import hookspecs
from setveil.streams import causes

DOC = " ".join((Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text(encoding="utf-8").split())


def test_an_oversize_window_is_said_to_reach_both_observer_hooks():
    # a review from a plugin author's seat: both pages listed the service's own rejections without
    # the batch too large, and said nothing of a window observed as anonymized being rejected after
    assert causes.OVERSIZE in causes.WINDOW_CAUSES
    assert ("In the service, a window observed here whose batch then exceeds `producer.max_request_bytes` is "
            "dead-lettered instead (cause `oversize`) and observed by `setveil_window_rejected` too") in DOC
    assert ("or its batch exceeds `producer.max_request_bytes` (after `setveil_window_anonymized` observed it). "
            "Called once per rejected window.") in DOC
    for spec in (hookspecs.setveil_window_anonymized, hookspecs.setveil_window_rejected):
        assert "producer.max_request_bytes" in " ".join(inspect.getdoc(spec).split()), spec.__name__
