"""The lease a worker holds on its partitions while its group membership is known to be current
(docs/operations.md, "Delivery guarantees", "Fenced: a paused worker does not publish").

The producer is not transactional, so the broker does not refuse the sends of a worker that was
cut out of the group. A worker paused (SIGSTOP, a VM pause) longer than
``consumer.session_timeout`` lost its partitions to another worker; when it resumed in the middle
of a window it sent that window 75-120 ms after aiokafka logged "Heartbeat session expired", while
the partition's new owner had emitted the same messages cut elsewhere: two different releases of
the same transactions (found by a QA chaos pass, 2 of 2 runs).

The coordinator restarts a member's session timer when it receives a heartbeat or a SyncGroup
request from it, and can give the member's partitions to another worker only after the session
timeout has run out since then. A worker is therefore sure to own its partitions for
``session_timeout`` after it *sent* a heartbeat or SyncGroup request that was acknowledged without
error; that time, less a margin (a heartbeat interval, at least a tenth of the session timeout) for
a send to reach the broker after it was checked, is the lease. A worker resumed after a longer
pause finds its lease expired whatever its event loops run first, because the time is taken when a
request is sent, not when its answer is read: an answer read after the pause renews nothing that
was not renewed before it. A heartbeat answered ``RebalanceInProgress`` renews nothing either: the
partitions may go elsewhere once the rebalance completes.

aiokafka keeps the time of the last good heartbeat in a local variable of its heartbeat routine
and has no callback for it, so the coordinator's ``_send_req``, through which the heartbeat and
the group join pass, is wrapped on the instance (Faust runs the consumer, and so this wrapper, in
a thread of its own; the lease is one tuple, replaced whole).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

#: Kafka API keys of the requests that restart a member's session: SyncGroup and Heartbeat
SYNC_GROUP, HEARTBEAT = 14, 12

#: seconds: a float, or the decimal a setting was typed as, in which streams.settings checks its rules
Seconds = TypeVar("Seconds", float, Decimal)


def lease_margin(session_timeout: Seconds, heartbeat_interval: Seconds) -> Seconds:
    """Seconds left for a send to reach the broker after the lease was checked: a heartbeat
    interval, at least a tenth of the session timeout."""
    return max(heartbeat_interval, session_timeout / 10)


def lease_term(session_timeout: Seconds, heartbeat_interval: Seconds) -> Seconds:
    """Seconds a confirmation is good for: the session timeout less the margin."""
    return session_timeout - lease_margin(session_timeout, heartbeat_interval)


class Lease:
    """When the worker's group membership was last confirmed, and under which generation."""

    def __init__(self, session_timeout: float, heartbeat_interval: float,
                 clock: Callable[[], float] = time.monotonic):
        #: seconds a confirmation is good for
        self.term = lease_term(session_timeout, heartbeat_interval)
        self.clock = clock
        #: (clock time the confirmed request was sent, its generation), or None before the first
        self._confirmed: tuple[float, int] | None = None
        self._coordinator = None

    @property
    def generation(self) -> int | None:
        confirmed = self._confirmed
        return None if confirmed is None else confirmed[1]

    def age(self) -> float | None:
        """Seconds since the latest confirmed request was sent (None before the first)."""
        confirmed = self._confirmed
        return None if confirmed is None else self.clock() - confirmed[0]

    def current(self, generation: int | None = None) -> bool:
        """Whether the membership is known to be current (in ``generation``, when given)."""
        confirmed = self._confirmed
        return (confirmed is not None and self.clock() - confirmed[0] < self.term
                and generation in (None, confirmed[1]))

    def confirm(self, sent: float, generation: int) -> None:
        """A request sent at ``sent`` in ``generation`` was acknowledged without error."""
        confirmed = self._confirmed
        if confirmed is None or sent >= confirmed[0]:
            self._confirmed = (sent, generation)

    def watch(self, coordinator) -> None:
        """Confirm the lease by the requests ``coordinator`` (aiokafka's GroupCoordinator) sends
        and sees acknowledged; once per coordinator."""
        if coordinator is self._coordinator:
            return
        send = coordinator._send_req

        async def send_req(request):
            # the generation is read with the time, before the request goes: the heartbeat and
            # the SyncGroup request carry the generation the coordinator has then
            sent, generation = self.clock(), coordinator.generation
            response = await send(request)
            if request.API_KEY in (SYNC_GROUP, HEARTBEAT) and response.error_code == 0:
                self.confirm(sent, generation)
            return response

        coordinator._send_req = send_req
        self._coordinator = coordinator
