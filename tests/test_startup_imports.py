"""What a command that only describes setveil imports: the help and the plugin list load every
plugin, and their modules import scipy or the service's libraries where a model or a worker first
needs them, not when the command starts (scipy.sparse and scipy.special were most of the start-up).
"""

import subprocess
import sys
import textwrap

import pytest

#: modules that `setveil --help` and `setveil plugins` do not need
HEAVY = ("scipy", "asyncio", "ssl", "faust", "aiokafka", "mode", "prometheus_client")

COMMAND_MODULES = """
import atexit, sys

listing, sys.argv = sys.argv[1], ["setveil", *sys.argv[2:]]
atexit.register(lambda: open(listing, "w").write("\\n".join(sorted(sys.modules))))
from setveil.__main__ import main
main()
"""


def modules_loaded_by(tmp_path, *args: str) -> set[str]:
    listing = tmp_path / "modules"
    result = subprocess.run([sys.executable, "-c", COMMAND_MODULES, str(listing), *args], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    return set(listing.read_text().split())


@pytest.mark.parametrize("args", [["--help"], ["plugins"]], ids=" ".join)
def test_a_command_that_describes_setveil_imports_no_heavy_module(tmp_path, args):
    loaded = modules_loaded_by(tmp_path, *args)
    assert "setveil.plugins.coherence.moles" in loaded  # the plugins did load
    assert "setveil.streams.commands" in loaded
    assert sorted(name for name in loaded if name.split(".")[0] in HEAVY) == []


def test_a_command_that_runs_a_model_imports_scipy_before_its_first_window(tmp_path):
    data = tmp_path / "data.txt"
    data.write_text("a c\na c\nb\nb\n")  # c is too sure a guess from a
    sensitive = tmp_path / "sensitive.txt"
    sensitive.write_text("c\n")
    release = tmp_path / "release.txt"
    loaded = modules_loaded_by(tmp_path, "anonymize", "-m", "coherence", "-P", "h=0.5", "-P", "k=2", "-P", "p=1",
                               "--sensitive", str(sensitive), str(data), "-o", str(release))
    assert "scipy.sparse" in loaded
    assert release.read_text() == "c\nc\nb\nb\n"


CONFIGURED_THEN_PIPELINE = """
import pickle, sys
from setveil.core.engine import Pipeline
from setveil.core.model import Context
from setveil.core.plugins import get_plugin_manager, get_registry
from setveil.core.schema import ItemSchema

if sys.argv[1] == "configure":
    params = {"h": "1", "k": "1", "p": "2"}
    configured = get_registry().configure("coherence", None, params, Context(schema=ItemSchema()))
    print("scipy.sparse" in sys.modules)
    sys.stdout.flush()
    sys.stdout.buffer.write(pickle.dumps(configured))
else:  # a window process: the model comes pickled
    configured = pickle.loads(sys.stdin.buffer.read())
    print("scipy.sparse" in sys.modules)
    Pipeline(configured, get_plugin_manager())
    print("scipy.sparse" in sys.modules)
"""


def test_a_model_configured_or_received_has_scipy_imported_before_any_window():
    # a first window that imported it would count the import in its seconds (a benchmark's, a
    # worker's latency) and its memory (a window process under model.memory_limit), and every
    # process of the rho model's forked pool would import it again
    configured = subprocess.run([sys.executable, "-c", CONFIGURED_THEN_PIPELINE, "configure"], capture_output=True)
    assert configured.returncode == 0, configured.stderr
    shown, pickled = configured.stdout.split(b"\n", 1)
    assert shown == b"True"
    received = subprocess.run([sys.executable, "-c", CONFIGURED_THEN_PIPELINE, "receive"], input=pickled,
                              capture_output=True, text=False)
    assert (received.returncode, received.stdout.split()) == (0, [b"False", b"True"]), received.stderr


SIGNAL_IN_IMPORT = """
import sys
from setveil.core.deferred import DeferredModule

sys.path.insert(0, sys.argv[1])
heavy = DeferredModule("heavy")
try:
    heavy.VALUE
except KeyboardInterrupt:
    print("interrupted once", sys.modules["heavy"].VALUE)
"""


def test_a_ctrl_c_while_a_deferred_module_imports_is_raised_once_it_has(tmp_path):
    # as the command's own start-up holds it: raised inside an extension module's initialization
    # a KeyboardInterrupt is dropped, and the command ran to its end
    (tmp_path / "heavy.py").write_text(textwrap.dedent("""
        import os, signal
        os.kill(os.getpid(), signal.SIGINT)
        VALUE = sum(range(1000))
    """))
    result = subprocess.run([sys.executable, "-c", SIGNAL_IN_IMPORT, str(tmp_path)], capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, "interrupted once 499500\n", "")
