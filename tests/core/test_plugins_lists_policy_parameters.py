"""setveil plugins lists a policy's own parameters under it, with their range, default and help, and
--json gives them unchecked (the check uses the model alone); no policy setveil ships declares one,
so no test listed such a policy."""

import json

from .test_broken_plugins import GOOD_MODELS, install, setveil

TUNED = """
class Tuned(Keep):
    name = "tuned"
    summary = "keeps everything, tuned"
    parameters = (Parameter("depth", "how far the policy looks", "int", default=3, low=1),)


@hookimpl
def setveil_register_policies(register):
    register(Keep)
    register(Tuned)
"""


def test_a_policys_parameters_are_listed_under_it(tmp_path):
    env = install(tmp_path, GOOD_MODELS + TUNED)
    listing = setveil(env, "plugins")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    policy = lines.index("    policy tuned from brokenplugin-dist: keeps everything, tuned")
    assert lines[policy + 1] == "        -P depth: an integer in [1, inf), default 3 — how far the policy looks"
    rows = json.loads(setveil(env, "plugins", "--json").stdout)
    policies = next(row["policies"] for row in rows if row["model"] == "cap")
    assert [p["parameters"] for p in policies] == [[], [{"name": "depth", "allowed": "an integer in [1, inf)",
                                                         "required": False, "default": 3,
                                                         "help": "how far the policy looks", "checked": False}]]
