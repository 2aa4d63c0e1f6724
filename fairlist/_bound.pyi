"""Type stub of fairlist._bound, the fairness lower bound alone (native/_bound.pyx).

``metric`` is a fairlist.metrics.Metric value; counts are ``(tp, fp, tn, fn)`` for the captured
samples of a group and ``(pos, neg)`` for its uncaptured ones (``group_*``: one of each per group,
2 to 64 groups).
"""

from collections.abc import Sequence

_Counts4 = tuple[int, int, int, int]
_Counts2 = tuple[int, int]

def unfairness(metric: int, prot_counts: _Counts4, unprot_counts: _Counts4) -> float: ...
def fairness_lower_bound(
    metric: int,
    epsilon: float,
    fixed_prot: _Counts4,
    fixed_unprot: _Counts4,
    u_prot: _Counts2,
    u_unprot: _Counts2,
) -> tuple[bool, int]: ...
def time_bound(
    metric: int,
    epsilon: float,
    fixed_prot: _Counts4,
    fixed_unprot: _Counts4,
    u_prot: _Counts2,
    u_unprot: _Counts2,
    repeats: int,
) -> float: ...
def group_unfairness(metric: int, counts: Sequence[_Counts4]) -> float: ...
def group_fairness_lower_bound(
    metric: int,
    epsilon: float,
    fixed: Sequence[_Counts4],
    uncaptured: Sequence[_Counts2],
) -> tuple[bool, int]: ...
def time_group_bound(
    metric: int,
    epsilon: float,
    fixed: Sequence[_Counts4],
    uncaptured: Sequence[_Counts2],
    repeats: int,
) -> float: ...
