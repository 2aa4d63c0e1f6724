"""The Lagrangian dual of the fairness cap (issue 36; docs/design.md §10.2): a lower bound on
the fair optimum from an unconstrained, costed problem (:mod:`~fairlist.dual.bound`), and the
certificate that enumerates that problem's lists below a threshold
(:mod:`~fairlist.dual.certificate`, ``BnBSolver(dual=...)``).
"""

from .bound import FLOAT_SLACK, DualBound, LagrangianBound, dual_bound, lagrangian_bound
from .certificate import (
    DUAL_MODES,
    CostedProblem,
    DualCertificate,
    certify_by_dual,
    costed_problem,
    dual_path_refusal,
    solve_by_dual,
)

__all__ = [
    "LagrangianBound",
    "DualBound",
    "DualCertificate",
    "lagrangian_bound",
    "dual_bound",
    "certify_by_dual",
    "CostedProblem",
    "costed_problem",
    "FLOAT_SLACK",
    "DUAL_MODES",
    "dual_path_refusal",
    "solve_by_dual",
]
