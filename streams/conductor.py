"""How a worker keeps its subscription to the input topic: Faust's conductor, never subscribing to nothing.

With isolated partitions the conductor knows the input topic only through the streams of the
partitions' actors. Faust re-subscribes the consumer 45 s after those streams change, and it
drops a change that it notices during a rebalance; one that it notices just after (a race under
churn) is acted on. A worker that has lost every partition by then has no stream left, and
aiokafka refuses an empty subscription with a ``TypeError`` that stops the worker (exit status 1;
seen in 3 of 3 churn runs of one seed, at a SIGTERM that cut the wait short). Subscribed to
nothing, it would also leave the group's input topic and never be given a partition again. So a
worker with no stream stays subscribed to the topics it last had: it stays in the group, ready
for the next assignment.
"""

from __future__ import annotations

from collections.abc import Iterable

import faust
from faust.transport.conductor import Conductor
from faust.types.transports import ConductorT


class InputConductor(Conductor):
    """Faust's conductor; a worker whose streams have all ended keeps its last subscription."""

    _subscribed: frozenset[str] = frozenset()

    async def _update_indices(self) -> Iterable[str]:
        topics = frozenset(await super()._update_indices())
        if topics:
            self._subscribed = topics
        return set(self._subscribed)


class ServiceApp(faust.App):
    """A Faust app whose conductor is :class:`InputConductor`."""

    def _new_conductor(self) -> ConductorT:
        return InputConductor(app=self, beacon=None)
