"""A notebook user's item schema: the private and public items are the labels given, as a set of
str, or the schema is refused; one str is not read as its characters."""

import numpy as np
import pytest

from setveil import Context, ItemClass, ItemSchema, Vocabulary, Window
from setveil.core.engine import Pipeline
from setveil.core.plugins import get_plugin_manager, get_registry


@pytest.mark.parametrize(("given", "problem"), [
    ({"private": "hiv"}, "private is one str; give its labels as a set of str"),
    ({"private": frozenset(), "public": "bread"}, "public is one str; give its labels as a set of str"),
    ({"private": b"hiv"}, "private is one bytes; give its labels as a set of str"),
    ({"private": None}, "private is a NoneType; give its labels as a set of str"),
    ({"private": 7}, "private is an int; give its labels as a set of str"),
    ({"private": {7}}, "private: 1 label is not a str (an int); give its labels as a set of str"),
    ({"private": frozenset(), "public": [b"a", b"b"]},
     "public: 2 labels are not a str (a bytes); give its labels as a set of str"),
])
def test_labels_not_given_as_a_collection_of_str_are_refused(given, problem):
    with pytest.raises(TypeError) as refused:
        ItemSchema(**given)
    assert str(refused.value) == f"ItemSchema's {problem}"


def test_one_str_was_its_characters_and_left_the_private_item_public():
    # before: 'h' and 'i' private, and 'hiv' public, so coherence released it unprotected
    window = Window.from_transactions([["hiv", "a", "b"], ["a", "b"], ["a", "h"], ["b", "i"], ["hiv", "a"]])
    schema = ItemSchema(private=frozenset({"hiv"}))
    assert schema.classes(window.vocab).tolist() == [ItemClass.PRIVATE, ItemClass.PUBLIC, ItemClass.PUBLIC,
                                                     ItemClass.PUBLIC, ItemClass.PUBLIC]
    configured = get_registry().configure("coherence", None, {"h": "0.5", "k": "2", "p": "1"}, Context(schema=schema))
    released = Pipeline(configured, get_plugin_manager()).run(window, np.random.default_rng(0)).release.window
    assert list(released) == [["hiv", "a", "b"], ["a", "b"], ["a"], ["b"], ["hiv", "a"]]


@pytest.mark.parametrize("private", [{"hiv"}, ["hiv", "hiv"], ("hiv",), iter(["hiv"]), {"hiv": 1}.keys()])
def test_any_collection_of_str_is_taken_as_a_frozenset(private):
    schema = ItemSchema(private=private, public=["a"])
    assert schema.private == frozenset({"hiv"}) and type(schema.private) is frozenset
    assert schema.public == frozenset({"a"}) and type(schema.public) is frozenset
    assert hash(schema) == hash(ItemSchema(private=frozenset({"hiv"}), public=frozenset({"a"})))
    assert schema.classes(Vocabulary(["hiv", "a", "b"])).tolist() == [ItemClass.PRIVATE, ItemClass.PUBLIC,
                                                                       ItemClass.NEUTRAL]


def test_an_item_on_both_lists_is_still_a_value_error():
    with pytest.raises(ValueError, match="^1 item is both private and public$"):
        ItemSchema(private=["hiv"], public=("hiv", "a"))
