"""A context's digests: what a batch says of the item lists, hierarchy and parameter files that
made it (core/model.py ``Context.digests`` and ``file_digest``, docs/batch-format.md)."""

import hashlib
import json
import os

import pytest

from setveil.core.errors import ParameterError
from setveil.core.model import CONTEXT_NAMES, Context
from setveil.core.plugins import get_registry
from setveil.core.schema import ItemSchema
from setveil.plugins.sanitize.patterns import RestrictivePatterns


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


def test_a_list_file_is_digested_by_its_labels_as_read_each_once(tmp_path):
    # QA as a consumer recomputing digests from the published files: docs/batch-format.md says the
    # JSON array holds the labels as read (a repeat once, no blanks or byte-order mark, a JSON
    # string unquoted) and a hierarchy's edges with JSON-quoted fields unquoted, not CSV-parsed
    listed, hierarchy = tmp_path / "sensitive.txt", tmp_path / "h.csv"
    listed.write_bytes('\ufeffHIV\r\n\r\n  flu  \r\n"New York"\r\nHIV\r\n'.encode("utf-8"))
    hierarchy.write_text('"Smith, John",patients\n# a comment\n\n b , patients\npatients,*\n')
    context = Context(schema=ItemSchema.from_files(listed), hierarchy_file=hierarchy)
    assert context.digests() == {
        "sensitive": sha256(["HIV", "New York", "flu"]),
        "hierarchy": sha256([["Smith, John", "patients"], ["b", "patients"], ["patients", "*"]]),
    }


def test_the_names_a_path_parameter_may_not_take_are_those_the_context_digests(tmp_path):
    # the registry refuses CONTEXT_NAMES for a path parameter, since a batch's model.context holds
    # both kinds of digest under one name each: a list digested here must be in it (review)
    (tmp_path / "h.csv").write_text("a,*\n")
    full = Context(schema=ItemSchema(private=frozenset({"s"}), public=frozenset({"a"})), hierarchy_file=tmp_path / "h.csv")
    assert set(full.digests()) == set(CONTEXT_NAMES)


def configure_sanitize(restrictive):
    return get_registry().configure("sanitize", "iga", {"restrictive": str(restrictive), "psi": "0"})


def test_a_file_parameter_is_named_by_the_digest_of_what_the_model_read(tmp_path):
    # QA as a consumer: batches made with two pattern files carried byte-identical model blocks
    one, other = tmp_path / "one.txt", tmp_path / "other.txt"
    one.write_text("a b\nc d\n")
    other.write_text("c d\na b\n")
    assert configure_sanitize(one).files == {"restrictive": "sha256:" + hashlib.sha256(b"a b\nc d\n").hexdigest()}
    assert configure_sanitize(one).files != configure_sanitize(other).files  # the model's own format: order counts


def test_a_pipe_is_read_by_the_model_alone(tmp_path):
    # a file that can be read once (`-P restrictive=<(...)`) goes to the model whole, and has no digest
    read, write = os.pipe()
    os.write(write, b"a b\n")
    os.close(write)
    try:
        configured = configure_sanitize(f"/proc/self/fd/{read}")
    finally:
        os.close(read)
    assert configured.files == {} and configured.model.patterns.patterns == (("a", "b"),)


def edited_while_read(monkeypatch, edit, read_after=False):
    """The sanitize model's pattern file, with ``edit`` run as the model reads it: after its read,
    or before it (so that the model reads the edited file)."""
    load = RestrictivePatterns.load

    def load_and_edit(path):
        if read_after:
            edit()
            return load(path)
        patterns = load(path)
        edit()
        return patterns

    monkeypatch.setattr(RestrictivePatterns, "load", staticmethod(load_and_edit))


# the mutation pass: a file gone once the model had read it (a rename, a ConfigMap's link swap) was
# taken for the one it read
@pytest.mark.parametrize("edit", ["other bytes", "the same bytes again", "emptied (the model's own error)", "removed"])
def test_a_file_parameter_changed_while_the_model_read_it_is_refused(tmp_path, monkeypatch, edit):
    # QA: a file rewritten in place, even with the bytes it had, may have been read half-written
    restrictive = tmp_path / "restrictive.txt"
    restrictive.write_text("a b\n")
    before = os.stat(restrictive).st_mtime_ns

    def rewrite():
        if edit == "removed":
            restrictive.unlink()
            return
        restrictive.write_text({"other bytes": "a b\nc d\n", "the same bytes again": "a b\n"}.get(edit, ""))
        os.utime(restrictive, ns=(before + 10**9, before + 10**9))  # a later write, past the clock's granularity

    edited_while_read(monkeypatch, rewrite, read_after=edit.startswith("emptied"))
    with pytest.raises(ParameterError) as refused:
        configure_sanitize(restrictive)
    assert refused.value.name == "restrictive" and "changed while it was read" in str(refused.value)
