"""The benchmarks' memory tests: a model whose runs hold memory that Python's allocator does not
see, and what a forked run's memory figures (core.bench.in_child) must then show."""

import mmap

#: what a run maps outside Python's allocator, in MiB
MAPPED_MIB = 64


def map_while_anonymizing(monkeypatch, model: type) -> None:
    """Make ``model``'s runs hold :data:`MAPPED_MIB` written (so resident) in an anonymous
    mapping, which tracemalloc does not count."""
    anonymize = model.anonymize

    def mapping(self, window, policy, rng):
        held = mmap.mmap(-1, MAPPED_MIB * 2**20)
        held.write(b"x" * len(held))
        try:
            return anonymize(self, window, policy, rng)
        finally:
            held.close()

    monkeypatch.setattr(model, "anonymize", mapping)


def check_forked_memory(row: dict) -> None:
    """The peak holds what the run started with (the interpreter, its libraries and the data), as
    the tree does where it was sampled."""
    assert row["peak_mib"] > row["run_mib"] + 10
    assert row["tree_mib"] is None or row["tree_mib"] > 10
