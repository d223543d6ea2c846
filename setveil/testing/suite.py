"""The :class:`ConformanceSuite` test base class."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from setveil.core.errors import Infeasible, ParameterError
from setveil.core.hierarchy import Hierarchy
from setveil.core.model import Context, PrivacyModel, Transformation
from setveil.core.plugins import Configured, get_registry
from setveil.core.schema import ItemSchema
from setveil.core.window import Window

from .strategies import PRIVATE_PREFIX, windows

# Every model's suite runs these same methods from its own subclass, which hypothesis would
# otherwise flag as differing executors.
_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors]
)


def assert_release_ok(model: PrivacyModel, original: Window, release: Window) -> None:
    """The release is aligned with the original and passes the model's check."""
    assert len(release) == len(original)
    problems = list(model.violations(original, release))
    assert not problems, [v.describe() for v in problems[:5]]
    if model.transformation is not Transformation.GENERALIZATION:
        for before, after in zip(original, release):
            assert set(after) <= set(before), "suppression added an item"


class ConformanceSuite:
    """Inherit, set ``model`` and ``params``; override :meth:`context` if the model needs more
    than an item schema (sensitive items are the labels starting with ``s``)."""

    model: ClassVar[str]
    params: ClassVar[dict[str, Any]] = {}
    invalid_params: ClassVar[list[dict[str, Any]]] = []
    policies: ClassVar[list[str] | None] = None
    #: hypothesis strategy arguments for the random windows
    window_args: ClassVar[dict[str, Any]] = {}

    # -- hooks for subclasses -------------------------------------------------------------
    @classmethod
    def prepare(cls, folder: Path) -> None:
        """Called once per test class, before its tests, with an empty folder of its own: write
        the files that parameters or the context name (pattern lists, hierarchies) and set
        ``params`` / ``invalid_params`` on ``cls``. Does nothing by default."""

    @pytest.fixture(autouse=True, scope="class")
    @classmethod
    def _prepared(cls, tmp_path_factory):
        cls.prepare(tmp_path_factory.mktemp(cls.model))

    def context(self) -> Context:
        """The context every run gets; by default an item schema from the label prefixes and,
        for models that generalize, :meth:`hierarchy`."""
        private = frozenset(f"{PRIVATE_PREFIX}{i}" for i in range(64))
        needs_hierarchy = get_registry().model_class(self.model).needs_hierarchy
        return Context(schema=ItemSchema(private=private), hierarchy=self.hierarchy() if needs_hierarchy else None)

    def hierarchy(self) -> Hierarchy:
        """A generalization hierarchy over every label the random windows use (fan-out 3). One
        fixed hierarchy for all windows, so releases of different windows are comparable."""
        labels = [f"p{i}" for i in range(64)] + [f"{PRIVATE_PREFIX}{i}" for i in range(64)]
        return Hierarchy.balanced(labels, 3)

    # -- helpers ----------------------------------------------------------------------------
    def policy_names(self) -> list[str]:
        if self.policies is not None:
            return list(self.policies)
        return sorted(get_registry().policies[self.model])

    def configured(self, policy: str | None = None, params: dict[str, Any] | None = None) -> Configured:
        return get_registry().configure(self.model, policy, self.params if params is None else params, self.context())

    def release_or_refusal(self, configured: Configured, window: Window, seed: int = 0) -> Window | None:
        try:
            release = configured.model.anonymize(window, configured.policy, np.random.default_rng(seed))
        except Infeasible as exc:
            assert exc.reason, "Infeasible must say why"
            return None
        assert_release_ok(configured.model, window, release.window)
        return release.window

    # -- the checks -----------------------------------------------------------------------------
    def test_model_is_registered_with_policies(self):
        registry = get_registry()
        cls = registry.model_class(self.model)
        assert cls.name == self.model
        assert cls.summary and cls.guarantee
        assert cls.default_policy in registry.policies[self.model]
        for name in self.policy_names():
            assert registry.policy_class(self.model, name).summary

    @_settings
    @given(window=windows())
    def test_every_release_passes_the_check(self, window):
        for policy in self.policy_names():
            self.release_or_refusal(self.configured(policy), window)

    @_settings
    @given(window=windows())
    def test_same_seed_same_release(self, window):
        for policy in self.policy_names():
            configured = self.configured(policy)
            first = self.release_or_refusal(configured, window, seed=7)
            second = self.release_or_refusal(self.configured(policy), window, seed=7)
            assert (first is None) == (second is None)
            if first is not None:
                assert list(first) == list(second)

    @_settings
    @given(first=windows(), second=windows())
    def test_union_of_safe_windows_is_safe(self, first, second):
        configured = self.configured()
        if not configured.model.union_safe:
            pytest.skip("the model does not claim union safety")
        a = self.release_or_refusal(configured, first)
        b = self.release_or_refusal(configured, second)
        if a is None or b is None:
            return
        vocab = first.vocab.copy()
        original = Window.concat([first, second], vocab=vocab)
        released = Window.concat([a, b], vocab=vocab)
        problems = [
            v for v in configured.model.violations(original, released)
        ]
        assert not problems, [v.describe() for v in problems[:5]]

    def test_empty_window(self):
        for policy in self.policy_names():
            released = self.release_or_refusal(self.configured(policy), Window.empty())
            assert released is None or len(released) == 0

    def test_one_transaction_window(self):
        window = Window.from_transactions([["p0", "p1", f"{PRIVATE_PREFIX}0"]])
        for policy in self.policy_names():
            self.release_or_refusal(self.configured(policy), window)

    def test_invalid_parameters_are_refused_by_name(self):
        for bad in self.invalid_params:
            params = {**self.params, **bad}
            with pytest.raises(ParameterError) as info:
                self.configured(params=params)
            assert info.value.name in bad, f"error names {info.value.name!r}, expected one of {sorted(bad)}"

    def test_unknown_parameter_is_refused(self):
        with pytest.raises(ParameterError) as info:
            self.configured(params={**self.params, "no_such_parameter": "1"})
        assert info.value.name == "no_such_parameter"
