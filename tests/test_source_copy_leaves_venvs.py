"""The packaging tests build from a copy of the work tree without the virtual environments in it.

README has a venv made beside `.venv` for another Python (`.venv313`) and for the lowest
dependencies (`.venv-lowest`): the copy took each whole, and one whose interpreter link
dangles (its Python removed, or a chroot's) failed test_packaging with a shutil.Error.
"""

import os

from .builds import source_copy


def test_every_venv_of_the_work_tree_is_left_out_of_its_copy(tmp_path):
    tree = tmp_path / "tree"
    (tree / "core").mkdir(parents=True)
    (tree / "core" / "cli.py").write_text("")
    for venv in (".venv", ".venv313", ".venv-lowest"):
        (tree / venv / "bin").mkdir(parents=True)
        os.symlink("/no/such/python3.14", tree / venv / "bin" / "python")
    (tmp_path / "copies").mkdir()
    copy = source_copy(tmp_path / "copies", tree)
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*")) == ["core", "core/cli.py"]
