"""How ``setveil bench rho`` finds a dataset in its ``--datasets`` folder."""

import gzip

from setveil.plugins.rho.bench import _load, dataset_file

LINES = "1 2 3 4 5 6 \n2 3 4 5 6 7 \n1 3 5 7 9 11 \n"


def test_a_dataset_is_found_gzipped_as_connect_ships(tmp_path):
    # QA: bench rho --datasets /work/shared/datasets --dataset connect refused connect.dat as
    # "cannot read", where the folder has connect.dat.gz
    (tmp_path / "tiny.dat.gz").write_bytes(gzip.compress(LINES.encode()))
    assert dataset_file(tmp_path, "tiny") == tmp_path / "tiny.dat.gz"


def test_a_plain_dataset_is_found_first(tmp_path):
    (tmp_path / "tiny.dat").write_text(LINES)
    (tmp_path / "tiny.dat.gz").write_bytes(gzip.compress(LINES.encode()))
    assert dataset_file(tmp_path, "tiny") == tmp_path / "tiny.dat"


def test_a_missing_dataset_is_named_by_its_plain_file(tmp_path):
    assert dataset_file(tmp_path, "tiny") == tmp_path / "tiny.dat"


def test_the_cutoff_copy_of_a_gzipped_dataset_keeps_the_first_items_of_each_line(tmp_path):
    (tmp_path / "tiny.dat.gz").write_bytes(gzip.compress(LINES.encode()))
    data = _load(tmp_path, "tiny", 0.4, 0, 5)
    assert [sorted(items, key=int) for items in data.window] == [
        ["1", "2", "3", "4", "5"], ["2", "3", "4", "5", "6"], ["1", "3", "5", "7", "9"]]
