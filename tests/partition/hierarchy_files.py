"""An analyst's hierarchy file given to anonymize, for the tests of what the refusal of such a
file says: the data and the file written to the test's folder, and the command run on them."""

from ..core.figure1 import run

#: four transactions over a1, a2, b1 and b2, each item held twice
DATA = "a1 a2\na1 b1\na2 b2\nb1 b2\n"


def anonymize_with_hierarchy(folder, data: str, hierarchy: str, *model, name: str = "h.csv"):
    """``setveil anonymize data.dat -o out.dat MODEL --hierarchy NAME`` in ``folder``, with ``data``
    and ``hierarchy`` written there first as data.dat and NAME (UTF-8, as an analyst's editor saves
    it)."""
    (folder / "data.dat").write_text(data)
    (folder / name).write_text(hierarchy, encoding="utf-8")
    return run("anonymize", folder / "data.dat", "-o", folder / "out.dat", *model, "--hierarchy", folder / name)
