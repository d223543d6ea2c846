"""Records drawn as key-value pairs, for the tests that read them at once and one by one (files and
a worker's messages): each format gives its own items and field values."""

from hypothesis import strategies as st


def record_pairs(values: dict) -> st.SearchStrategy:
    """A record as its key-value pairs, ``items`` first and a key possibly twice, each value drawn
    from ``values`` by its key."""
    return st.lists(st.sampled_from(sorted(values)), max_size=4).flatmap(
        lambda keys: st.tuples(*(st.tuples(st.just(key), values[key]) for key in ["items", *keys])))


def plain_records(items: st.SearchStrategy, tids: st.SearchStrategy, extras: st.SearchStrategy) -> st.SearchStrategy:
    """A well-formed record: its tid where one is drawn, its items, then the ``extras`` pairs."""
    return st.builds(
        lambda items, tid, extra: ((("tid", tid),) if tid is not None else ()) + (("items", items),) + extra,
        items, tids, extras)


def one_fault(plain: st.SearchStrategy, items: st.SearchStrategy, values: dict) -> st.SearchStrategy:
    """A record that may hold a fault anywhere (``record_pairs``), or a well-formed one with one
    fault: an item, or a field (repeated, where the record has it)."""
    return st.one_of(
        record_pairs(values),
        st.builds(lambda pairs, item: tuple((key, [*value, item] if key == "items" else value) for key, value in pairs),
                  plain, items),
        st.builds(lambda pairs, pair: pairs + (pair,), plain,
                  st.sampled_from(sorted(values)).flatmap(lambda key: values[key].map(lambda value: (key, value)))))
