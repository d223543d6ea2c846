"""How a worker group shares the input partitions: Faust's sticky assignor, without standbys.

Faust keeps one standby replica of every partition for tables by default. With one, its
assignor balances only up to ceil(partitions / workers) per worker and left a worker idle: four
partitions over three workers became [0, 1], [2, 3], []. The service has no tables, so it needs
no standbys, and without them the assignor first trims every worker to floor(partitions /
workers), so every worker owns a partition while there are enough. Setting
``table_standby_replicas=0`` instead would make Faust use aiokafka's round-robin assignor: not
sticky (every rebalance would move most partitions and re-deliver their open windows), and
under another protocol name, so that workers of an earlier version could not share the group
with it during a rolling update (``InconsistentGroupProtocolError``).
"""

from __future__ import annotations

from faust.assignor import PartitionAssignor
from faust.types import AppT


class SpreadingAssignor(PartitionAssignor):
    """Faust's assignor, protocol ``faust``, assigning no standby replicas."""

    def __init__(self, app: AppT, replicas: int = 0) -> None:
        super().__init__(app, replicas=0)
