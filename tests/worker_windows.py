"""Windows of (items, subject) records put through the worker's own path, without a broker: what
the property tests of the service's edges hold to a brute-force reading of each model."""

from setveil.core.engine import Pipeline
from setveil.core.plugins import Configured, get_plugin_manager
from setveil.core.records import Record
from setveil.streams.codec import decode_batch
from setveil.streams.processor import WindowProcessor
from setveil.streams.windowing import Cut, Message


def merged(rows):
    """The transactions a window of (items, subject) records is anonymized as: a subject's records
    as one, the union of their items, where its first record is; subjects compare by value and type."""
    out, where = [], {}
    for items, subject in rows:
        key = None if subject is None else (type(subject), subject)
        if key is None or key not in where:
            if key is not None:
                where[key] = len(out)
            out.append(set(items))
        else:
            out[where[key]] |= set(items)
    return out


def released(configured: Configured, rows, merge: bool, first_offset: int = 0) -> list[set]:
    """The item sets of the batch the worker emits for ``rows`` as one window whose first record is
    at ``first_offset``; a window the worker fails closed fails the test with its reason."""
    worker = WindowProcessor(Pipeline(configured, get_plugin_manager()), seed=5, merge_subjects=merge, source="test")
    cut = Cut([Message(first_offset + offset, [Record(list(items), tid=first_offset + offset, subject=subject)], 0.0)
               for offset, (items, subject) in enumerate(rows)])
    outcome = worker.process("in", 0, cut)
    assert outcome.emitted, outcome.reason
    return [set(t["items"]) for t in decode_batch(outcome.value)["transactions"]]
