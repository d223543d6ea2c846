"""With standard error closed at start (``2>&-``), a file opened since takes descriptor 2.

libffi's static trampolines keep their library open there (Debian testing's libffi 3.8, which
ctypes loads as numpy is imported), and a plugin may keep a file of its own: ``anonymize -o -``
moved descriptor 1 onto whatever descriptor 2 then held, so a model's ``os.write(1, ...)`` failed
its window (EBADF on the library, opened read-only) or wrote into the plugin's file. Each case
installs a real distribution and runs the real command line.
"""

import subprocess
import sys

import pytest

from .distributions import KSUP_SOURCE, install_plugin

SOURCE = KSUP_SOURCE + '''
import os

from setveil import hookimpl

# with descriptor 2 closed at start, this open takes it, as a library's kept file does
KEPT = open(os.environ["KEPT_FILE"], os.environ["KEPT_MODE"])


class WritesToItsDescriptor(KSup):
    summary = "suppresses the items of support below k, and writes to descriptor 1 as C code does"

    def anonymize(self, window, policy, rng):
        os.write(1, b"from the descriptor: a line for standard output\\n")
        return KSup.anonymize(self, window, policy, rng)


@hookimpl
def setveil_register_privacy_models(register):
    register(WritesToItsDescriptor)


@hookimpl
def setveil_register_policies(register):
    register(Plain)
'''

DATA = "a b c\nHIV a\na b x\nb c x\na b c\nHIV z q\nHIV w\nr t\n"
RELEASED = "a b c\na HIV\na b x\nb c x\na b c\nHIV\nHIV\n\n"


@pytest.mark.parametrize("mode", ["r", "a"])
def test_a_file_on_descriptor_2_does_not_take_what_plugin_code_writes_to_descriptor_1(tmp_path, mode):
    kept = tmp_path / "kept.log"
    kept.write_text("")
    site = tmp_path / "site"
    site.mkdir()
    env = install_plugin(site, "keeps-a-file-dist", "keepsafile", SOURCE, "keepsafile")
    env.update(KEPT_FILE=str(kept), KEPT_MODE=mode)
    data = tmp_path / "in.dat"
    data.write_text(DATA)
    command = f'"{sys.executable}" -m setveil anonymize "{data}" -o - -m ksup -P k=2 2>&-'
    result = subprocess.run(["sh", "-c", command], env=env, capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (0, RELEASED)
    assert kept.read_text() == ""


def test_descriptor_2_closed_after_start_leaves_the_release_on_standard_output(tmp_path):
    # sys.stderr is then a file over no descriptor (code in the process closed it, as a daemon's
    # start does): descriptor 1 cannot join it and goes to /dev/null, where joining it failed the
    # run, exit 1, with nothing released
    data = tmp_path / "in.dat"
    data.write_text("a b c\nb c x\n")
    program = ("import os, runpy, sys\n"
               "os.close(2)\n"
               f"sys.argv = ['setveil', 'anonymize', {str(data)!r}, '-o', '-', '-m', 'kanonymity', '--fanout', '4',"
               " '-P', 'k=1']\n"
               "runpy.run_module('setveil', run_name='__main__', alter_sys=True)\n")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert (result.returncode, result.stdout) == (0, "a b c\nb c x\n")
