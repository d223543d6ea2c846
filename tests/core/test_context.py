"""A context's digests: what a batch says of the item lists and hierarchy that made it
(core/model.py ``Context.digests``, docs/batch-format.md)."""

import hashlib
import json

from setveil.core.model import Context
from setveil.core.schema import ItemSchema


def sha256(value) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(value, ensure_ascii=False).encode("utf-8")).hexdigest()


def test_a_hierarchy_digest_names_the_tree_not_the_file_layout(tmp_path):
    # QA as a consumer: batches made with two hierarchies carried byte-identical model blocks, so
    # nothing told a consumer that their generalized labels meant different things
    one, other, changed = tmp_path / "one.csv", tmp_path / "other.csv", tmp_path / "changed.csv"
    one.write_text("a,A\nb,A\nc,B\nA,*\nB,*\n")
    other.write_text("B,*\n\nc,B\nA,*\nb,A\na,A\n")
    changed.write_text("a,A\nb,B\nc,B\nA,*\nB,*\n")
    digest = {path: Context(hierarchy_file=path).digests() for path in (one, other, changed)}
    assert digest[one] == digest[other] != digest[changed]
    assert digest[one] == {"hierarchy": sha256(sorted([["a", "A"], ["b", "A"], ["c", "B"], ["A", "*"], ["B", "*"]]))}


def test_item_list_digests_are_of_the_sorted_labels():
    private, public = frozenset({"flu", "HIV"}), frozenset({"bread", "Beer", "Müsli"})
    assert Context(schema=ItemSchema(private=private, public=public)).digests() == {
        "sensitive": sha256(["HIV", "flu"]), "public": sha256(["Beer", "Müsli", "bread"])}
    assert Context(schema=ItemSchema(private=private)).digests() == {"sensitive": sha256(["HIV", "flu"])}
    assert Context().digests() == {}
