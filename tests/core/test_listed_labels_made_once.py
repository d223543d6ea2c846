"""Every label an item schema's lists give is made once, not for every window the worker checks,
and holding it changes nothing the schema compares, hashes or pickles."""

import pickle

from setveil.core.schema import ItemSchema


def test_the_listed_labels_are_made_once():
    schema = ItemSchema(frozenset({"HIV", "flu"}), frozenset({"a", "b"}))
    listed = schema.listed
    assert listed == {"HIV", "flu", "a", "b"}
    assert schema.listed is listed  # a new union at each call before


def test_a_schema_whose_listed_labels_were_made_compares_hashes_and_pickles_as_before():
    made, fresh = ItemSchema(frozenset({"HIV"}), None), ItemSchema(frozenset({"HIV"}), None)
    assert made.listed == {"HIV"}
    assert made == fresh and hash(made) == hash(fresh) and repr(made) == repr(fresh)
    copied = pickle.loads(pickle.dumps(made))
    assert copied == fresh and copied.listed == {"HIV"}
    assert ItemSchema(frozenset({"HIV"}), frozenset({"a"})).listed == {"HIV", "a"}
