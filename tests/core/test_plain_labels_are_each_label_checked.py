"""The bulk check of labels agrees with the check of each label: ``plain_labels`` (and
``plain_short_labels`` of labels known to be short, joined by the caller or not) is true exactly
where every label is one that ``label_problem`` passes and holds no whitespace, the first label and
a label of exactly ``MAX_LABEL_LENGTH`` characters included."""

from hypothesis import given, settings, strategies as st

from setveil.core.records import MAX_LABEL_LENGTH, label_problem, plain_labels, plain_short_labels

# a few characters of each kind the check looks for: whitespace (Unicode's too), NUL, plain text
LABELS = st.text(st.sampled_from("ab7 \t\x1c\u3000\0"), max_size=4)


def each_plain(labels):
    return all(label_problem(label) is None and label.split() == [label] for label in labels)


@settings(max_examples=500, deadline=None)
@given(st.lists(LABELS, min_size=1, max_size=6))
def test_plain_labels_is_each_label_passing_and_without_whitespace(labels):
    assert plain_labels(labels) == each_plain(labels)
    assert plain_short_labels(labels) == each_plain(labels)
    assert plain_short_labels(labels, "".join(labels)) == each_plain(labels)


def test_a_label_of_the_greatest_length_is_plain_and_one_longer_is_not():
    longest = "x" * MAX_LABEL_LENGTH
    assert plain_labels([longest, "y"])
    assert not plain_labels(["y", longest + "x"])


def test_whitespace_in_the_first_label_alone_is_not_plain():
    assert not plain_labels([" a", "b"])
    assert not plain_short_labels(["a b", "c"])
    assert not plain_short_labels(["\0", "c"])
