"""Hierarchy-file errors name the file and line and refer to other lines by number: a hierarchy
of diagnoses is data, so no node label may reach a message (core/hierarchy.py)."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from setveil.core.errors import InputError
from setveil.core import hierarchy as hierarchy_module
from setveil.core.hierarchy import Hierarchy
from setveil.core.labeltext import field_text, read_utf8

from .figure1 import run

LABELS = ("HIV", "Diabetes", "MRN-7", "ALL", "SECRET")


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("HIV,ALL\nDiabetes,ALL\nHIV,SECRET\n", 3, "the child has two parents: another one on line 1"),
        ("HIV,ALL\nDiabetes,Diabetes\n", 2, "the child is its own parent (a cycle)"),
        ("HIV,ALL\nDiabetes,ALL\nHIV,ALL\n", 3, "the edge is repeated (first on line 1)"),
        ("HIV,ALL\nDiabetes,SECRET\nMRN-7,ALL\n", 2,
         "2 roots: the parent on line 1 and the one on this line have no parent; a hierarchy has one root"),
        # the line that closes the cycle is blamed, not the first line of the file
        ("HIV,ALL\nDiabetes,ALL\nALL,HIV\n", 3, "the edge closes a cycle: the parent is below the child"),
        ("HIV,Diabetes\nDiabetes,MRN-7\nMRN-7,HIV\n", 3, "the edge closes a cycle: the parent is below the child"),
        ("HIV,ALL\nDiabetes,ALL\nMRN-7,SECRET\nSECRET,MRN-7\n", 4, "the edge closes a cycle: the parent is below the child"),
        # regression (QA, hostile input files): a node's label longer than an item's went into
        # the release, which verify then refused to read
        ("HIV,ALL\nDiabetes," + "SECRET" * 200 + "\n", 2, "field 2 is longer than 1024 characters"),
        ("SECRET" * 200 + ",ALL\n", 1, "field 1 is longer than 1024 characters"),
    ],
)
def test_errors_name_lines_never_labels(tmp_path, text, line, problem):
    path = tmp_path / "h.csv"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        Hierarchy.read(path)
    assert str(info.value) == f"{path}:{line}: {problem}"
    assert not any(label in str(info.value) for label in LABELS)


def test_a_long_chain_still_reads_and_any_order_of_edges_gives_one_tree(tmp_path):
    # the cycle check is a union-find over the edges, not a walk up the tree per edge
    chain = [f"n{i},n{i + 1}\n" for i in range(20_000)]
    for lines in (chain, chain[::-1]):
        path = tmp_path / "chain.csv"
        path.write_text("".join(lines))
        tree = Hierarchy.read(path)
        assert tree.n_leaves == 1 and tree.height == 20_000 and tree.labels[0] == "n20000"


def test_a_release_generalized_to_a_long_label_is_never_written(tmp_path):
    # the same regression end to end: anonymize exited 0, and verify of its release exited 2
    data, hierarchy, out = tmp_path / "d.dat", tmp_path / "h.csv", tmp_path / "o.dat"
    data.write_text("a b\na c\nb c\n")
    hierarchy.write_text("".join(f"{item},{'P' * 1500}\n" for item in "abc"))
    result = run("anonymize", data, "-o", out, "--model", "kanonymity", "-P", "k=3", "--hierarchy", hierarchy)
    assert result.exit_code == 2 and not out.exists()
    assert result.output == f"setveil: error: {hierarchy}:1: field 2 is longer than 1024 characters\n"


def test_a_label_of_1024_characters_is_taken_and_one_of_1025_refused(tmp_path):
    # the limit is an item's (MAX_LABEL_LENGTH), exactly: a longer node could not be read back
    path = tmp_path / "h.csv"
    path.write_text("a," + "P" * 1024 + "\nb," + "P" * 1024 + "\n")
    assert Hierarchy.read(path).labels[0] == "P" * 1024
    path.write_text("a,ALL\n" + "Q" * 1025 + ",ALL\n")
    with pytest.raises(InputError) as info:
        Hierarchy.read(path)
    assert str(info.value) == f"{path}:2: field 1 is longer than 1024 characters"


#: what a second root brought in by line 1 alone adds to the message
HEADER_HINT = " (line 1 shares no label with any other line: a header? a hierarchy file has none)"


@pytest.mark.parametrize("text, line, roots, hint", [
    # roots are taken in the order of their lines, not of their labels
    ("HIV,SECRET\nDiabetes,ALL\n", 2, 2, HEADER_HINT),
    # the first two are named, not the first and the last
    ("HIV,ALL\nMRN-7,SECRET\nDiabetes,Diabetes-2\n", 2, 3, ""),
    # QA: "2 roots: the parent on line 1 ..." was true of a CSV header, but did not say so
    *((f"{header}\nHIV,ALL\nDiabetes,ALL\n", 2, 2, HEADER_HINT)
      for header in ["child,parent", "Child, Parent", '"child","parent"', "node,generalization"]),
    # line 1's parent has another child, or its child a child: line 1 is part of a tree
    ("HIV,SECRET\nMRN-7,SECRET\nDiabetes,ALL\n", 3, 2, ""),
    ("HIV,SECRET\nMRN-7,HIV\nDiabetes,ALL\n", 3, 2, ""),
    # a header would leave a root too many still: the hint would not explain the file
    ("child,parent\nHIV,ALL\nDiabetes,SECRET\n", 2, 3, ""),
    # the lone edge is not line 1: no header is there
    ("HIV,ALL\nDiabetes,ALL\nMRN-7,SECRET\n", 3, 2, ""),
])
def test_several_roots_name_the_first_two_by_their_lines(tmp_path, text, line, roots, hint):
    path = tmp_path / "h.csv"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        Hierarchy.read(path)
    assert str(info.value) == (f"{path}:{line}: {roots} roots: the parent on line 1 and the one on this line have "
                               f"no parent; a hierarchy has one root{hint}")


def test_no_header_is_asked_about_when_line_1s_parent_is_the_child_of_another_line(tmp_path):
    # Regression (rev65): line 1's parent, with line 1's child its only one, was taken for the
    # extra root whatever it was, and the hint said line 1 shared no label with any other line
    # where its parent was line 3's child
    path = tmp_path / "h.csv"
    path.write_text("HIV,Infections\nDiabetes,Metabolic\nInfections,ALL\n")
    with pytest.raises(InputError) as info:
        Hierarchy.read(path)
    assert str(info.value) == (f"{path}:3: 2 roots: the parent on line 2 and the one on this line have no parent; "
                               "a hierarchy has one root")


def test_lines_end_at_newline_alone(tmp_path):
    # as in the data and the item lists (core/labeltext.py): a label may hold U+2028 or U+0085
    # (NEL), written as a JSON string, and the lines after it keep their numbers
    path = tmp_path / "h.csv"
    path.write_text('"HIV\u2028Diabetes",ALL\n"MRN\x857",ALL\n')
    assert Hierarchy.read(path).labels == ["ALL", "HIV\u2028Diabetes", "MRN\x857"]
    path.write_text('"HIV\u2028Diabetes",ALL\n"MRN\x857",ALL\nSECRET\n')
    with pytest.raises(InputError) as info:
        Hierarchy.read(path)
    assert str(info.value) == f"{path}:3: expected one edge 'child,parent'"


def _oracle(edges):
    """The tree or the error of ``(child, parent, line)`` edges, as the reader defines them, by
    the obvious walk: edges in order, the first at fault named (a self-loop, a second parent or
    a repeated edge, an edge whose parent is below its child), then the roots, then every node
    in preorder with its siblings in the order listed."""
    parent_of, children, first_line = {}, {}, {}
    for child, parent, line in edges:
        if child == parent:
            return line, "the child is its own parent (a cycle)"
        if child in parent_of:
            other, other_line = parent_of[child]
            if other == parent:
                return line, f"the edge is repeated (first on line {other_line})"
            return line, f"the child has two parents: another one on line {other_line}"
        above = parent
        while above in parent_of:
            above = parent_of[above][0]
        if above == child:
            return line, "the edge closes a cycle: the parent is below the child"
        parent_of[child] = (parent, line)
        children.setdefault(parent, []).append(child)
        first_line.setdefault(parent, line)
    roots = sorted((node for node in children if node not in parent_of), key=first_line.__getitem__)
    if len(roots) > 1:
        child, parent, line = edges[0]
        alone = (len(roots) == 2 and parent not in parent_of and children[parent] == [child]
                 and child not in children)
        hint = f" (line {line} shares no label with any other line: a header? a hierarchy file has none)" if alone else ""
        return first_line[roots[1]], (f"{len(roots)} roots: the parent on line {first_line[roots[0]]} and the one on "
                                      f"this line have no parent; a hierarchy has one root{hint}")
    order = []

    def visit(node):
        order.append(node)
        for child in children.get(node, ()):
            visit(child)

    visit(roots[0])
    return order, [order.index(parent_of[node][0]) if node in parent_of else -1 for node in order]


edge_lists = st.lists(st.tuples(st.sampled_from("abcdefgh"), st.sampled_from("abcdefgh")), min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(pairs=edge_lists)
@example(pairs=[("a", "b"), ("b", "c"), ("d", "e"), ("e", "d"), ("f", "g")])  # a cycle apart from the trees
@example(pairs=[("a", "b"), ("c", "d"), ("b", "a")])  # a cycle, and two roots before it closes
@example(pairs=[("a", "b"), ("b", "c"), ("d", "c"), ("e", "a"), ("f", "d"), ("g", "b")])
def test_any_edges_give_the_tree_or_the_first_error_the_walk_in_line_order_finds(tmp_path_factory, pairs):
    # the reader finds them over whole arrays; this is what it must agree with, edge by edge
    edges = [(child, parent, line) for line, (child, parent) in enumerate(pairs, start=1)]
    expected = _oracle(edges)
    path = tmp_path_factory.mktemp("h") / "h.csv"
    path.write_text("".join(f"{child},{parent}\n" for child, parent, _ in edges))
    for build in (lambda: Hierarchy.from_edges(edges, str(path)), lambda: Hierarchy.read(path)):
        if isinstance(expected[0], int):
            with pytest.raises(InputError) as info:
                build()
            assert str(info.value) == f"{path}:{expected[0]}: {expected[1]}"
        else:
            tree = build()
            assert tree.labels == expected[0] and tree.parent.tolist() == expected[1]
            assert tree.lines == {child: line for child, _, line in edges} | {expected[0][0]: min(
                line for _, parent, line in edges if parent == expected[0][0])}


def _outcome(build):
    try:
        tree = build()
    except InputError as exc:
        return str(exc)
    return tree.labels, tree.parent.tolist(), tree.lines


blanks = st.text(alphabet=" \t", max_size=2)
edge_lines = st.builds("{}{}{},{}{}{}".format, blanks, st.sampled_from(["a", "b", "c", "d e", '"a"', '"c, d"', '"#e"']),
                       blanks, blanks, st.sampled_from(["b", "c", "R", "d e", '"R"', '"c, d"']), blanks)


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(edge_lines | st.text(alphabet='abc,# \t"', max_size=7), max_size=8))
@example(lines=["a,b", "c , b", "  # note, here", "", "b,R"])
@example(lines=["a,b", "b," + "c" * 1025])
@example(lines=["a,b,", "c"])
@example(lines=['"c, d",R', "a,b", '"#e" , "c, d"', "b,R"])
@example(lines=["a,b", '"a" x,R', "b,"])
@example(lines=["a,b", '"' + "c" * 1025 + '",b'])
def test_a_file_split_at_once_reads_as_line_by_line(tmp_path_factory, lines):
    # the reader splits a file over all its lines at once, those with a quoted label one by one:
    # blank lines, comments, blanks around fields, quoted labels and every malformed line as the
    # per-line reading takes them
    path = tmp_path_factory.mktemp("h") / "h.csv"
    text = "\n".join(lines)
    path.write_text(text)
    by_line = _outcome(lambda: Hierarchy.from_edges(hierarchy_module._edges_of_lines(path, text), str(path)))
    assert _outcome(lambda: Hierarchy.read(path)) == by_line


@pytest.mark.parametrize("text", [
    "a," + "P" * 1024 + "\nb," + "P" * 1024 + "\n",
    '"a, b",' + field_text("P" * 511 + "\t" + "P" * 512) + "\n" + field_text("P" * 511 + "\t" + "P" * 512) + ",ALL\n",
    "a\u00a0,\u00a0ALL\nb\u2003c ,ALL\n",
    "\ufeffa,ALL\nb\ufeff,ALL\n",
    "a,ALL\r\n\r\n# note, here\r\nb,ALL\r\n",
    "a#1,ALL\nb,A#2\nA#2,ALL\n#c,d\n",
    "1,0\n01,0\n1.0,01\n",
])
def test_a_file_at_fault_in_no_line_is_never_read_line_by_line(tmp_path, monkeypatch, text):
    # labels of exactly 1,024 characters, blanks of other scripts, a byte-order mark, CRLF and a
    # '#' inside a label are all well-formed: the line-by-line reading is for a file at fault
    # only, and gives the same tree
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8", newline="")
    by_line = _outcome(lambda: Hierarchy.from_edges(hierarchy_module._edges_of_lines(path, read_utf8(path)),
                                                    str(path)))
    assert not isinstance(by_line, str)

    def at_fault(*args):
        raise AssertionError("a well-formed file read line by line")

    monkeypatch.setattr(hierarchy_module, "_edges_of_lines", at_fault)
    assert _outcome(lambda: Hierarchy.read(path)) == by_line


def test_several_roots_are_named_in_the_order_of_their_lines_as_given_to_from_edges():
    # from_edges takes the lines of any source, in any order: the first root is the one of the
    # lowest line, as the roots were sorted by line before the whole-array reading
    edges = [("HIV", "SECRET", 5), ("Diabetes", "ALL", 2), ("MRN-7", "ALL", 7)]
    with pytest.raises(InputError) as info:
        Hierarchy.from_edges(edges, "h.csv")
    assert str(info.value) == ("h.csv:5: 2 roots: the parent on line 2 and the one on this line have no parent; "
                               "a hierarchy has one root")
