"""Length deepening's default, ``BnBSolver(deepen_length="auto")``: how many phases to run.

Length deepening (``fairlist::Config::deepen_length``, ``native/src/search.cpp``'s
``Search::run_phases``) certifies the lists of at most 1, 2, ..., D rules as phases, each a
search capped at that length that knows the shorter lists certified, then searches on knowing
that every list of interest has at least D + 1 rules. Every phase is exact, so any D gives the
same certificate; D only moves the work. A phase ends at once when the root's bound plus
``lam`` per rule reaches the incumbent, so a D past the lengths that can still win costs
nothing, and the main search after them then ends at once too (its root's bound counts D + 1
rules): deepening "through every length" is a complete search by phases.

``"auto"`` resolves to:

* every length (:data:`EVERY_LENGTH`; the core stops one rule below the cap) when there is no
  length cap, ``lam > 0`` and no node or memory budget (``Limits.max_nodes`` and
  ``Limits.memory_limit_mb`` None; a time limit or none). Without a cap the main search has no
  terminal solver (it acts only under a cap), while each phase has one: on COMPAS (SP <= 0.05,
  lambda 0.01, one core) the phases certify in 60-77 CPU s what the plain search certifies in
  486 (``docs/performance.md``, "Length deepening as the default");
* 0 (off) with a node or memory budget. A node budget does bound the phases (the core counts
  their nodes expanded or finished by counting against ``max_nodes``, besides the live trie:
  ``Search::budget_spent``), but a phase's node costs 33-83 CPU us on COMPAS (about a plain
  expansion: 30-112) where the plain search's stored node costs 0.85-2: the same budget buys
  the phases 15-65 times the plain search's time. At 200,000 nodes (a sweep's budget) they
  leave 0.44-0.79 of the plain gap in 5-15 CPU s against 0.17-0.25 (``docs/performance.md``,
  "Length deepening under a node budget"); at 4 M (the estimator's) they may run 130-330
  CPU s (SP 0.05, lambda 0.01 certifies in 65 CPU s against 8 plain), so the 60 s time limit,
  not the budget, would end most runs. A memory budget does not
  bound their time at all. Ask for them with an integer (``deepen_length=50``): the node
  budget then bounds the whole solve;
* 0 under a length cap: the search is then capped from the start, with its terminal solver,
  and the phases repeat the shorter lists' work (COMPAS SP <= 0.05, lambda 0.005: at most 4
  rules the same expansions; at most 5 rules certified in 102 CPU s plain, not certified in
  96 deepened to 4);
* 0 when ``lam == 0``: no phase can end early (the root's bound does not grow with the
  length), so the phases would search every length below the cap again and again;
* 0 in the Rashomon mode (the core refuses deepening there: its phases prune the lists that do
  not beat the incumbent, which the set needs): ``BnBSolver._config`` gives 0 for ``"auto"``
  and only ``BnBSolver.solve`` resolves it here.

An integer is used as given (0: off).

>>> from fairlist.solvers import Limits
>>> deepen_phases("auto", max_length=None, lam=0.01, limits=Limits(time_limit=60))
9223372036854775807
>>> deepen_phases("auto", max_length=None, lam=0.01, limits=Limits(10_000, time_limit=60))
0
>>> deepen_phases("auto", max_length=None, lam=0.01, limits=Limits())
9223372036854775807
>>> deepen_phases("auto", max_length=5, lam=0.01, limits=Limits())
0
>>> deepen_phases(3, max_length=5, lam=0.01, limits=Limits(max_nodes=10_000))
3
"""

from __future__ import annotations

from .base import Limits

#: ``BnBSolver(deepen_length=...)``'s default.
DEEPEN_AUTO = "auto"
#: Deepen through every length: the core clamps it to one rule below the cap (int64_t max).
EVERY_LENGTH = 2**63 - 1


def deepen_phases(
    deepen_length: int | str, *, max_length: int | None, lam: float, limits: Limits
) -> int:
    """The number of deepening phases ``fairlist::Config::deepen_length`` gets for the setting
    ``deepen_length`` (an int, used as given, or ``"auto"``, resolved as the module docstring
    says) on a problem with this cap, length penalty and limits."""
    if deepen_length != DEEPEN_AUTO:
        return int(deepen_length)
    space_budget = limits.max_nodes is not None or limits.memory_limit_mb is not None
    if max_length is not None or not lam > 0 or space_budget:
        return 0
    return EVERY_LENGTH
