"""What the registry leaves to the call when it checks a plugin's methods at start-up: a policy
base method declared with *args (it says nothing of how the model calls it), an abstract property,
and a model method that is a callable object (it binds as it likes). Such a plugin loads and runs;
no test registered one, so these branches of the method checks went unexercised."""

from .test_broken_plugins import GOOD_MODELS, GOOD_POLICIES, install, setveil

LOOSE = """
class LoosePolicy(Policy):
    model = "loose"

    @abc.abstractmethod
    def order(self, *windows): ...

    @property
    @abc.abstractmethod
    def depth(self): ...


class Plain(LoosePolicy):
    name = "plain"
    summary = "keeps everything"
    depth = 1

    def order(self, window):
        return None


class NoLoss:
    def __call__(self, original, release):
        return 0.0


class Loose(Cap):
    name = "loose"
    default_policy = "plain"
    policy_base = LoosePolicy
    information_loss = NoLoss()


@hookimpl(specname="setveil_register_privacy_models")
def register_loose(register):
    register(Loose)


@hookimpl(specname="setveil_register_policies")
def register_plain(register):
    register(Plain)
"""


def test_methods_the_checks_leave_to_the_call_load_and_run(tmp_path):
    env = install(tmp_path, GOOD_MODELS + GOOD_POLICIES + LOOSE)
    data, out = tmp_path / "in.dat", tmp_path / "out.dat"
    data.write_text("a b\nc\n")
    result = setveil(env, "anonymize", str(data), "-o", str(out), "--model", "loose", "-P", "m=1")
    assert result.returncode == 0, result.stderr
    assert out.read_text() == "a b\nc\n"
