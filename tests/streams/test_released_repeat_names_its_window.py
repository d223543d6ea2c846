"""A tid released again is refused naming the window that released it first, found past the
windows before it, never the tid."""

from __future__ import annotations

import pytest

from setveil.streams.released import Released, ReleaseError


@pytest.mark.parametrize("tid", [2, "p-77"], ids=["integer", "text"])
def test_the_window_named_is_the_one_that_released_the_tid_not_the_first_window(tid):
    release = Released()
    release.add("in/0/0-1", [{"tid": 0, "items": ["a"]}, {"tid": 1, "items": ["b"]}])
    release.add("in/1/0-1", [{"tid": tid, "items": ["a"]}, {"tid": 3, "items": ["b"]}])
    release.add("in/0/2-2", [{"tid": 4, "items": ["a"]}])
    with pytest.raises(ReleaseError) as refused:
        release.add("in/1/2-2", [{"tid": tid, "items": ["b"]}])
    assert str(refused.value) == "windows in/1/0-1 and in/1/2-2 release one tid under different window ids"
