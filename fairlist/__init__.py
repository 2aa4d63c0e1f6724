"""fairlist: certifiably optimal fair rule lists.

Learn short ``if … then … else …`` classifiers that minimise training error plus a length
penalty while an unfairness measure stays under a cap. Two exact engines sit behind one
interface: a C++ branch-and-bound (``engine="bnb"``) and an OR-Tools CP-SAT model
(``engine="cpsat"``).
"""

from ._version import __version__
from .metrics import Metric, confusion_counts, unfairness
from .rulelist import Rule, RuleList, RuleListFormatError
from .solvers import Limits, Problem, Result, Status, StopReason, solve

__all__ = [
    "__version__",
    "Metric",
    "confusion_counts",
    "unfairness",
    "Rule",
    "RuleList",
    "RuleListFormatError",
    "Limits",
    "Problem",
    "Result",
    "Status",
    "StopReason",
    "solve",
]
