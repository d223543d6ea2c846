"""A file that does not fit in memory is one line naming it, exit 2, never a traceback: a gzip
bomb, an endless file, or transactions past a ``ulimit -v``. setveil sets no limit of its own on a
file's size, so these run the CLI under an address-space limit, as a user bounds it."""

import gzip
import os
import resource
import subprocess
import sys

import pytest

#: the address space each run may take: setveil's own start needs about 200 MB of it
LIMIT = 512 * 1024 * 1024
#: one thread each, so that the libraries' per-thread reservations do not depend on the machine's CPUs
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
MODEL = ("-m", "kanonymity", "--fanout", "4", "-P", "k=1")


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def run(*args):
    return subprocess.run([sys.executable, "-m", "setveil", *map(str, args)], capture_output=True, text=True,
                          timeout=120, preexec_fn=limited, env={**os.environ, **ONE_THREAD})


def gzip_bomb(path, gigabytes: int) -> int:
    """gzip data of a few megabytes that unzips to ``gigabytes`` GiB of FIMI text, as members one
    after another (gzip reads them as one stream); its size."""
    member = gzip.compress(b"a " * (1 << 22), 9)  # 8 MiB each
    data = member * (128 * gigabytes)
    path.write_bytes(data)
    return len(data)


def test_a_small_file_runs_under_the_limit(tmp_path):
    # the control: the refusals below come from their files, not from the limit alone
    (tmp_path / "in.dat").write_text("a b\nb c\n")
    result = run("anonymize", tmp_path / "in.dat", "-o", tmp_path / "out.dat", *MODEL)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.dat").read_text() == "a b\nb c\n"


@pytest.mark.parametrize("option", [None, "--sensitive"])
def test_a_gzip_bomb_is_refused_naming_the_file(tmp_path, option):
    bomb = tmp_path / "bomb.dat.gz"
    size = gzip_bomb(bomb, 2)
    if option is None:
        result = run("anonymize", bomb, "-o", tmp_path / "out.dat", *MODEL)
    else:
        (tmp_path / "in.dat").write_text("a b\nb c\n")
        result = run("anonymize", tmp_path / "in.dat", "-o", tmp_path / "out.dat", "-m", "coherence",
                     option, bomb, "-P", "h=0.5", "-P", "k=2", "-P", "p=2")
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"setveil: error: {bomb}: cannot read: out of memory unzipping its {size:,} bytes of "
                             "gzip data (gzip can unzip to a thousand times its size)\n")
    assert not (tmp_path / "out.dat").exists()


@pytest.mark.parametrize("option", [None, "--sensitive", "--hierarchy"])
def test_an_endless_file_is_refused_naming_it(tmp_path, option):
    if option is None:
        result = run("anonymize", "/dev/zero", "-o", tmp_path / "out.dat", *MODEL)
    else:
        (tmp_path / "in.dat").write_text("a b\nb c\n")
        model = ("-m", "coherence", "-P", "h=0.5", "-P", "k=2", "-P", "p=2") if option == "--sensitive" \
            else ("-m", "kanonymity", "-P", "k=2")
        result = run("anonymize", tmp_path / "in.dat", "-o", tmp_path / "out.dat", *model, option, "/dev/zero")
    assert result.returncode == 2, result.stderr
    assert result.stderr == ("setveil: error: /dev/zero: cannot read: out of memory before its end "
                             "(a file is read whole)\n")


def test_transactions_past_the_limit_are_refused_naming_the_file(tmp_path):
    # 60 MB read whole, but its 30,000,000 items take more than the limit leaves
    (tmp_path / "in.dat").write_bytes(b"x " * 30_000_000)
    result = run("anonymize", tmp_path / "in.dat", "-o", tmp_path / "out.dat", *MODEL)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"setveil: error: {tmp_path / 'in.dat'}: cannot read: out of memory holding its "
                             "60,000,000 bytes as transactions\n")
