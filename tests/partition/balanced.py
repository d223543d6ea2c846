"""Random transactions under a balanced hierarchy of their items, as AA's property tests draw them."""

from hypothesis import strategies as st

from setveil.core.hierarchy import Hierarchy


@st.composite
def rows_under_a_hierarchy(draw, min_items: int = 3, max_items: int = 30, max_length: int = 6, min_rows: int = 2,
                           max_rows: int = 50) -> tuple[list[list[str]], Hierarchy]:
    """Rows of 1..``max_length`` distinct items out of ``min_items``..``max_items``, and a balanced
    hierarchy of fan-out 2 to 4 over the items they hold."""
    labels = [f"i{x}" for x in range(draw(st.integers(min_items, max_items)))]
    rows = draw(st.lists(st.lists(st.sampled_from(labels), min_size=1, max_size=max_length, unique=True),
                         min_size=min_rows, max_size=max_rows))
    return rows, Hierarchy.balanced(sorted({item for row in rows for item in row}), draw(st.integers(2, 4)))
