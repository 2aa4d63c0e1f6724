"""The Rashomon set: every fair rule list nearly as good as the optimal one.

:func:`rashomon_set` returns, in one branch-and-bound search, every rule list of the searched
space whose objective is at most the optimum plus ``delta`` and which meets the fairness cap:
the lists a practitioner may choose among, and the place to look for a *less discriminatory
alternative* at about the same accuracy (:meth:`RashomonSet.fairest`).

The set is defined over the engine's full space: lists of at most ``max_length`` rules over
distinct antecedents, each rule predicting either label and capturing at least one training
sample (of positive weight) not captured by an earlier rule, plus a default prediction (either
label, even when no sample reaches it). A list is a member when it meets the cap and its
objective ``errors / n + lam * length`` is at most ``optimum + delta + 1e-9`` (the slack absorbs
the rounding of the objectives).

How the engine finds them (``native/include/fairlist/context.hpp``, ``SearchContext::cutoff``):
the search records every fair list whose objective is within ``delta`` of the best list found so
far, and prunes a prefix only when its lower bound exceeds that threshold; as the best list
improves the threshold falls and the lists above it are dropped. The shortcuts that keep one of
several lists (the permutation map, the support bounds, canonical ties, the majority labels of
an unconstrained search) are switched off in this mode; the terminal solver compares with the
threshold and also offers the lists it otherwise skips as predicting like a shorter one; the
bounds on the objective of every completion (hierarchical, lookahead, maximum useful length,
equivalent points, the fairness and class bounds) stay on.

Identical antecedent columns are merged before the search (the first of each set stands in for
the others, :attr:`RashomonSet.merged`): two lists that differ only by such twins classify every
sample alike, and the set holds one of them.

Bounded like a fit (issue 37): the engine's store of lists is counted in ``memory_limit_mb``
with the room the lists take when handed over (``native/include/fairlist/rashomon.hpp``; what
does not fit is cut at an objective, as ``max_lists`` cuts); the set stays in flat numpy arrays
(:class:`RashomonSet`), its views work on them a chunk at a time, and a ``delta`` beyond
:func:`max_useful_delta` is lowered to it.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import operator
import textwrap
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
import pandas as pd

from ._json import dumps
from ._params import INT64_MAX, Interval, Options, validate_params
from .errors import DataError, InvalidParameterError
from .metric_table import METRICS, RATES, Metric
from .rulelist import Rule, RuleList
from .solvers.base import DEFAULT_LAM, Problem, StopReason
from .solvers.bnb import (
    POLICIES,
    BnBSolver,
    default_memory_limit_mb,
    distinct_columns,
    engine_weights,
)

__all__ = ["RashomonSet", "rashomon_set", "max_useful_delta", "ENGINES", "CHUNK_BYTES"]

#: Engines that enumerate the set: the branch-and-bound, and CP-SAT (every solution under an
#: objective bound; a cross-check for small problems, fairlist.solvers.cpsat_rashomon).
ENGINES = ("bnb", "cpsat")

#: The membership slack (``kRashomonSlack`` in ``native/include/fairlist/context.hpp``).
SLACK = 1e-9

PARAMETER_CONSTRAINTS: dict[str, list] = {
    "delta": [Interval(numbers.Real, 0, None, closed="left")],
    "max_lists": [None, Interval(numbers.Integral, 1, INT64_MAX)],
    "engine": [Options(ENGINES)],
    "policy": [Options(POLICIES)],
}


#: The bytes the views over the set (predictions, to_frame, fairest, multiplicity, JSON) work
#: on at a time: they go through the lists in chunks of about this size, never one Python
#: object per list for the whole set.
CHUNK_BYTES = 16 * 2**20

#: The lists :meth:`RashomonSet.write_json` writes at a time: a few milliseconds each, so that
#: its deadline is kept closely.
JSON_LISTS = 1000


@dataclass(frozen=True, eq=False)
class RashomonSet:
    """The fair rule lists within ``delta`` of the optimum (see :func:`rashomon_set`).

    The set is held compactly, as the engine returns it: flat arrays of the lists' rules, not
    one Python object per list (100,000 :class:`RuleList` objects of COMPAS took 4.1 GB, the
    arrays 11 MB). A list is built when asked for: ``rs[i]``, iteration, :attr:`rule_lists`;
    the views (:meth:`to_frame`, :meth:`fairest`, :meth:`multiplicity`, :meth:`predictions`)
    work on the arrays in chunks of :data:`CHUNK_BYTES`.

    Attributes
    ----------
    rules : ndarray of uint32
        Every member's rules, concatenated: ``column << 1 | prediction``, ``column`` an index
        into ``problem.feature_names``.
    starts : ndarray of int64
        Member ``i``'s rules are ``rules[starts[i]:starts[i + 1]]`` (one more than the members).
    defaults : ndarray of uint8
        Each member's default prediction.
    objectives : ndarray of float
        Their objectives. The members are sorted by objective; among equal objectives fewer
        rules first, then by antecedent index, then by the rules' predictions, then by the
        default.
    optimum : float
        The best objective (inf when no list is fair). Certified when the search completed.
    optimum_lower_bound : float
        A proved lower bound on the optimum (equal to it when certified).
    delta : float
        The set's width: members have objectives at most ``optimum + delta`` (+1e-9); a
        ``delta`` beyond :func:`max_useful_delta` was lowered to it (every fair list is in).
    complete : bool
        True when the set is proved to hold every member. False when ``max_lists`` cut it
        (it then holds the ``max_lists`` members of least objective, the optimum certified),
        or a limit or Ctrl-C stopped the search (the set is then relative to the best list
        found): every member of objective below :attr:`complete_below` is listed.
    complete_below : float
        inf when complete; otherwise the objective below which the set is complete.
    stop_reason : StopReason
        Why the search stopped (``max_lists``, a limit, ``interrupted``; ``completed``).
    merged : dict
        For each antecedent that stands for identical columns, the names of those columns.
    problem : Problem
        The problem the lists were learned on (for the views).
    stats : dict
        The search's statistics.
    """

    rules: np.ndarray
    starts: np.ndarray
    defaults: np.ndarray
    objectives: np.ndarray
    optimum: float
    optimum_lower_bound: float
    delta: float
    complete: bool
    complete_below: float
    stop_reason: StopReason
    merged: dict[str, tuple[str, ...]]
    problem: Problem = field(repr=False)
    stats: dict[str, Any] = field(default_factory=dict, repr=False)
    _cache: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        set_("rules", np.asarray(self.rules, dtype=np.uint32))
        set_("starts", np.asarray(self.starts, dtype=np.int64))
        set_("defaults", np.asarray(self.defaults, dtype=np.uint8))
        set_("objectives", np.asarray(self.objectives, dtype=np.float64))
        n = len(self.defaults)
        if len(self.starts) != n + 1 or len(self.objectives) != n:
            raise ValueError(
                f"{len(self.starts)} starts and {len(self.objectives)} objectives for {n} lists"
            )

    def __len__(self) -> int:
        return len(self.defaults)

    def __getitem__(self, i: int | slice) -> RuleList | list[RuleList]:
        """Member ``i`` as a :class:`RuleList` (a slice: a list of them), built now."""
        if isinstance(i, slice):
            return [self._rule_list(k) for k in range(*i.indices(len(self)))]
        k = operator.index(i)
        if not -len(self) <= k < len(self):
            raise IndexError(f"rule list {i} of a set of {len(self)}")
        return self._rule_list(k % len(self))

    def __iter__(self) -> Iterator[RuleList]:
        """The members, one :class:`RuleList` at a time (none is kept)."""
        return (self._rule_list(k) for k in range(len(self)))

    @property
    def rule_lists(self) -> tuple[RuleList, ...]:
        """Every member as a :class:`RuleList`, built on each access (``rs[i]`` builds one)."""
        return tuple(self)

    @property
    def lengths(self) -> np.ndarray:
        """Each member's number of rules."""
        return np.diff(self.starts)

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"complete below {self.complete_below:.6g}"
        return (
            f"RashomonSet({len(self)} rule lists, optimum {self.optimum:.6g}, "
            f"delta {self.delta:g}, {state})"
        )

    def _rule_list(self, k: int) -> RuleList:
        """Member k, its Rule objects shared between lists (they are immutable) and its
        feature names the problem's tuple, not a copy per list."""
        rules_of = self._cache.setdefault("rules", {})
        names = self.problem.feature_names
        rules = []
        for code in self.rules[self.starts[k] : self.starts[k + 1]].tolist():
            rule = rules_of.get(code)
            if rule is None:
                rule = rules_of[code] = Rule(names[code >> 1], code & 1)
            rules.append(rule)
        rule_list = object.__new__(RuleList)  # a valid list by construction: no re-check
        for name, value in (
            ("rules", tuple(rules)),
            ("default", int(self.defaults[k])),
            ("labels", tuple(self.problem.labels)),
            ("feature_names", names),
        ):
            object.__setattr__(rule_list, name, value)
        return rule_list

    # ------------------------------------------------------------------ per-list data
    def _bits(self) -> _Bits:
        bits = self._cache.get("bits")
        if bits is None:
            used = np.flatnonzero(self._column_use()[0])
            bits = self._cache["bits"] = _Bits(self.problem, used)
        return bits

    def _column_use(self) -> tuple[np.ndarray, np.ndarray]:
        """How many members use each column, and where in ``rules`` it first appears (-1:
        nowhere), read a chunk at a time (no temporary the size of ``rules``)."""
        cached = self._cache.get("column_use")
        if cached is not None:
            return cached
        m = self.problem.n_antecedents
        counts, first = np.zeros(m, dtype=np.int64), np.full(m, -1, dtype=np.int64)
        step = max(1, CHUNK_BYTES // 16)
        for a in range(0, len(self.rules), step):
            columns = (self.rules[a : a + step] >> 1).astype(np.intp)
            here = np.bincount(columns, minlength=m)
            counts += here
            for j in np.flatnonzero((here > 0) & (first < 0)):  # each column once in all
                first[j] = a + int(np.argmax(columns == j))
        self._cache["column_use"] = counts, first
        return counts, first

    def _chunks(
        self, start: int = 0, stop: int | None = None, deadline: float | None = None
    ) -> Iterator[tuple[int, int, np.ndarray]]:
        """``(i0, i1, bits)``: the predictions of members ``i0 .. i1`` as bits (one row of
        words a list), chunk after chunk over ``start .. stop``; none once ``deadline`` (a
        ``time.perf_counter()`` time) has passed."""
        stop = len(self) if stop is None else stop
        if start >= stop:
            return
        bits = self._bits()
        per_list = bits.words * 8 * 4 + (9 * bits.n if bits.weighted else 0)
        size = max(1, CHUNK_BYTES // per_list)
        for i0 in range(start, stop, size):
            if deadline is not None and time.perf_counter() >= deadline:
                return
            i1 = min(i0 + size, stop)
            yield i0, i1, bits.predict(self.rules, self.starts[i0 : i1 + 1], self.defaults[i0:i1])

    def predictions(self) -> Iterator[np.ndarray]:
        """Each member's 0/1 predictions (uint8) on the training rows, in the set's order."""
        n = self.problem.n_samples
        for _, _, pred in self._chunks():
            yield from _unpack(pred, n)

    def to_frame(
        self, start: int = 0, stop: int | None = None, *, columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """One row per member: objective, accuracy, every metric's unfairness (columns named by
        the metrics' short names), each group's positive rate (``positive_rate[group]``),
        length, the antecedents used and the list itself (its text).

        ``start``, ``stop``: the members ``start .. stop`` only (the index holds their
        positions in the set); ``columns``: only these columns. The numbers are computed with
        numpy over the set's arrays, chunk by chunk; the last two columns hold one Python
        object per member, so ask for them on the rows needed (a summary's first rows).
        """
        p = self.problem
        all_columns = _frame_columns(p)
        stop = len(self) if stop is None else max(start, min(stop, len(self)))
        start = max(0, min(start, stop))
        chosen = all_columns if columns is None else list(columns)
        unknown = [c for c in chosen if c not in all_columns]
        if unknown:
            raise InvalidParameterError(
                f"columns: {unknown[0]!r} is not a column of the set's frame ({all_columns})"
            )
        data: dict[str, Any] = {}
        if "objective" in chosen:
            data["objective"] = self.objectives[start:stop].astype(np.float64)
        if "length" in chosen:
            data["length"] = np.diff(self.starts[start : stop + 1])
        counted = [c for c in chosen if c not in _STORED_COLUMNS]
        if counted:
            parts: dict[str, list[np.ndarray]] = {c: [] for c in counted}
            for _, _, pred in self._chunks(start, stop):
                scores = self._bits().scores(pred, p, counted)
                for c in counted:
                    parts[c].append(scores[c])
            for c in counted:
                data[c] = np.concatenate(parts[c]) if parts[c] else np.zeros(0)
        if "antecedents" in chosen:
            names = p.feature_names
            data["antecedents"] = [
                tuple(names[code >> 1] for code in self.rules[a:b].tolist())
                for a, b in zip(
                    self.starts[start:stop], self.starts[start + 1 : stop + 1], strict=True
                )
            ]
        if "rule_list" in chosen:
            data["rule_list"] = [str(self._rule_list(k)) for k in range(start, stop)]
        index = pd.RangeIndex(start, stop)
        return pd.DataFrame({c: data[c] for c in chosen}, index=index, columns=chosen)

    # ------------------------------------------------------------------ views
    def fairest(self, metric: Any = None, frame: pd.DataFrame | None = None) -> int:
        """Index of the member of least unfairness under ``metric`` (default: the problem's),
        the lowest objective among ties: the less discriminatory alternative within delta
        (``frame``: :meth:`to_frame`, if already computed)."""
        name = _short_name(self.problem.metric if metric is None else metric)
        if not len(self):
            raise ValueError("the Rashomon set is empty: no list meets the cap")
        if frame is None:
            frame = self.to_frame(columns=["objective", name])
        order = np.lexsort((frame["objective"].to_numpy(), frame[name].to_numpy()))
        return int(frame.index[order[0]])

    def antecedent_usage(self) -> pd.Series:
        """How many members use each antecedent (feature reliance across the set), most used
        first (ties: the one met first in the set's order); antecedents no member uses are
        left out."""
        counts, first = self._column_use()
        used = np.flatnonzero(counts)
        counts, first = counts[used], first[used]
        order = np.lexsort((first, -counts))
        names = [self.problem.feature_names[j] for j in used[order]]
        return pd.Series(counts[order], index=names, dtype=np.int64, name="lists")

    def multiplicity(self) -> pd.DataFrame:
        """Predictive multiplicity by group: the share of each group's rows (by weight) whose
        prediction differs between two members of the set (``ambiguity``), and its rows.
        One row per group plus ``all``."""
        return _multiplicity(self.problem, *self._spread(self._chunks()))

    def _spread(self, chunks: Iterator[tuple[int, int, np.ndarray]]) -> tuple[Any, Any]:
        """The rows some member predicts positive, and those every member does (as bits),
        over the chunks given; (None, None) for none."""
        any_pos = all_pos = None
        for _, _, pred in chunks:
            some, every = np.bitwise_or.reduce(pred, 0), np.bitwise_and.reduce(pred, 0)
            any_pos = some if any_pos is None else any_pos | some
            all_pos = every if all_pos is None else all_pos & every
        return any_pos, all_pos

    # ------------------------------------------------------------------ reports
    def to_dict(self, frame: pd.DataFrame | None = None) -> dict[str, Any]:
        """The set as plain data (``fairlist rashomon --json``): its certificate, the feature
        names once, and, per list, the rows of :meth:`to_frame` with the list as a rule-list
        document (without the feature names); ``frame``: that frame, if already computed.
        ``listed``: the number of lists given (``size`` unless the command line's output was
        cut by its time limit)."""
        head = self._head_doc()
        head["lists"] = list(self._list_docs(0, len(self), frame))
        head["listed"] = len(head["lists"])
        return head

    def write_json(self, out: TextIO, *, deadline: float | None = None) -> int:
        """Writes :meth:`to_dict`'s document to ``out`` (the same text as ``dumps``), the lists
        chunk by chunk (never all at once), and stops listing them once ``deadline`` (a
        ``time.perf_counter()`` time) has passed: the document stays valid, ``listed`` says how
        many lists it holds. Returns that number."""
        head = self._head_doc()
        if not len(self):
            out.write(dumps(head | {"lists": [], "listed": 0}) + "\n")
            return 0
        text = dumps(head)  # ends with "\n}"
        out.write(text[:-2] + ',\n  "lists": [')
        listed = 0
        step = JSON_LISTS
        try:  # closed whatever happens (Ctrl-C included): the document stays valid
            for i0 in range(0, len(self), step):
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                docs = self._list_docs(i0, min(i0 + step, len(self)))
                items = [textwrap.indent(dumps(doc), "    ") for doc in docs]
                out.write(("\n" if listed == 0 else ",\n") + ",\n".join(items))
                listed += len(items)
        finally:
            out.write(("\n  ]" if listed else "]") + f',\n  "listed": {listed}\n}}\n')
        return listed

    def _head_doc(self) -> dict[str, Any]:
        return {
            "size": len(self),
            "optimum": self.optimum,
            "optimum_lower_bound": self.optimum_lower_bound,
            "delta": self.delta,
            "complete": self.complete,
            "complete_below": None if math.isinf(self.complete_below) else self.complete_below,
            "stop_reason": str(self.stop_reason),
            "merged": {k: list(v) for k, v in self.merged.items()},
            "seconds": self.stats.get("seconds"),
            "feature_names": list(self.problem.feature_names),
        }

    def _list_docs(
        self, start: int, stop: int, frame: pd.DataFrame | None = None
    ) -> Iterator[dict[str, Any]]:
        if frame is None:  # the list's text is not needed: its document replaces it
            frame = self.to_frame(start, stop, columns=_frame_columns(self.problem)[:-1])
        else:
            frame = frame.iloc[start:stop]
        for k, row in zip(range(start, stop), frame.to_dict("records"), strict=True):
            row["antecedents"] = list(row["antecedents"])
            doc = self._rule_list(k).to_dict()
            doc.pop("feature_names", None)  # once, at the top
            row["rule_list"] = doc
            yield row

    def head(self, k: int) -> RashomonSet:
        """The set of the first ``k`` members (arrays shared, not copied): complete below the
        objective of member ``k`` when that drops some."""
        k = max(0, min(operator.index(k), len(self)))
        if k == len(self):
            return self
        first = dataclasses.replace(
            self,
            rules=self.rules[: self.starts[k]],
            starts=self.starts[: k + 1],
            defaults=self.defaults[:k],
            objectives=self.objectives[:k],
            complete=False,
            complete_below=min(self.complete_below, float(self.objectives[k])),
        )
        # the columns' bits and the rules hold for a subset (not the counts of the columns)
        first._cache.update({k: v for k, v in self._cache.items() if k != "column_use"})
        return first

    def summary(
        self, rows: int = 20, frame: pd.DataFrame | None = None, *, deadline: float | None = None
    ) -> str:
        """A text report: the certificate, the first ``rows`` lists (objective, accuracy,
        the problem's unfairness, length, antecedents), the fairest member, the antecedents
        most used, and the predictive multiplicity by group.

        ``frame``: :meth:`to_frame`, if already computed. ``deadline`` (a
        ``time.perf_counter()`` time): the fairest member and the multiplicity, which read
        every list, cover the lists done by then, and the report says so.
        """
        return self._summary(rows, frame, deadline)[0]

    def _summary(
        self, rows: int, frame: pd.DataFrame | None, deadline: float | None
    ) -> tuple[str, int]:
        """:meth:`summary`, and the number of lists its views covered."""
        metric = self.problem.metric.short_name
        lines = [repr(self)]
        if not self.complete:
            lines.append(
                f"incomplete ({self.stop_reason}): every member of objective below "
                f"{self.complete_below:.6g} is listed"
            )
        if "delta_requested" in self.stats:
            lines.append(
                f"delta {self.stats['delta_requested']:g} lowered to {self.delta:.6g}: no two "
                "rule lists differ by more, so the set is every fair list"
            )
        for kept, twins in self.merged.items():
            lines.append(f"{kept} stands for the identical columns {', '.join(twins)}")
        if not len(self):
            return "\n".join([*lines, "no rule list meets the cap"]), 0
        shown_columns = ["objective", "accuracy", metric, "length", "antecedents"]
        if frame is None:
            shown = self.to_frame(0, rows, columns=shown_columns)
        else:
            shown = frame[shown_columns].head(rows)
        lines.append(shown.to_string(float_format=lambda v: f"{v:.4f}"))
        if len(self) > rows:
            lines.append(f"... {len(self) - rows} more")
        # one pass over the set for the fairest member and the multiplicity
        unfairness, objectives, done = [], [], 0
        bits = self._bits()

        def scored() -> Iterator[tuple[int, int, np.ndarray]]:
            nonlocal done
            for i0, i1, pred in self._chunks(deadline=deadline):
                unfairness.append(bits.scores(pred, self.problem, [metric])[metric])
                objectives.append(self.objectives[i0:i1])
                done = i1
                yield i0, i1, pred

        any_pos, all_pos = self._spread(scored())
        if done < len(self):
            lines.append(
                f"the time limit cut the views below: they cover the first {done} of "
                f"{len(self)} lists"
            )
        if done:
            values = np.concatenate(unfairness)
            best = int(np.lexsort((np.concatenate(objectives), values))[0])
            lines.append(
                f"fairest member: #{best} ({metric} {values[best]:.4f}, objective "
                f"{self.objectives[best]:.4f})\n{self._rule_list(best)}"
            )
        usage = self.antecedent_usage().head(10)
        lines.append("lists using each antecedent:\n" + usage.to_string())
        if done:
            lines.append("predictive multiplicity (share of rows whose prediction changes):")
            table = _multiplicity(self.problem, any_pos, all_pos)
            lines.append(table.to_string(float_format=lambda v: f"{v:.4f}"))
        return "\n".join(lines), done


#: The columns of RashomonSet.to_frame that need no predictions.
_STORED_COLUMNS = ("objective", "length", "antecedents", "rule_list")


def _frame_columns(p: Problem) -> list[str]:
    columns = ["objective", "accuracy", *(i.short_name for i in METRICS.values())]
    columns += [f"positive_rate[{g}]" for g in p.group_names]
    return [*columns, "length", "antecedents", "rule_list"]


def _multiplicity(p: Problem, any_pos: Any, all_pos: Any) -> pd.DataFrame:
    """:meth:`RashomonSet.multiplicity` from the bits of the rows some member predicts
    positive and of those every member does (None: an empty set)."""
    if any_pos is None:
        changes = np.zeros(p.n_samples, dtype=bool)
    else:
        changes = _unpack((any_pos & ~all_pos)[None], p.n_samples)[0].astype(bool)
    w = p.weights
    rows = {}
    for g, name in enumerate(p.group_names):
        mine = p.groups == g
        total = float(w[mine].sum())
        rows[name] = {
            "rows": int(mine.sum()),
            "ambiguity": float(w[mine & changes].sum()) / total if total else 0.0,
        }
    rows["all"] = {"rows": p.n_samples, "ambiguity": float(w[changes].sum()) / p.total_weight}
    return pd.DataFrame.from_dict(rows, orient="index")


def _pack(rows: np.ndarray, words: int) -> np.ndarray:
    """Boolean rows (r, n) as bits: (r, words) little-endian 64-bit words, bit i of a row's
    word i // 64 is column i."""
    packed = np.packbits(rows, axis=1, bitorder="little")
    out = np.zeros((rows.shape[0], words * 8), dtype=np.uint8)
    out[:, : packed.shape[1]] = packed
    return out.view(np.dtype("<u8"))


def _unpack(bits: np.ndarray, n: int) -> np.ndarray:
    """:func:`_pack`'s inverse: (r, words) words as (r, n) 0/1 uint8."""
    raw = np.ascontiguousarray(bits, dtype=np.dtype("<u8")).view(np.uint8)
    return np.unpackbits(raw, axis=1, count=n, bitorder="little")


_POPCOUNT8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def _popcount(words: np.ndarray) -> np.ndarray:
    """The number of set bits of each row of words (r, w) -> (r,)."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2.0
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    raw = np.ascontiguousarray(words).view(np.uint8)
    return _POPCOUNT8[raw].sum(axis=1, dtype=np.int64)


class _Bits:
    """The problem as bits for the views: the columns the set uses (one row of words each, and
    a last row of zeros that stands for "no rule"), and the rows of each (group, label) cell."""

    def __init__(self, p: Problem, used: np.ndarray) -> None:
        n = p.n_samples
        self.n, self.words = n, max(1, -(-n // 64))
        self.row = np.full(p.n_antecedents, len(used), dtype=np.int64)
        self.row[used] = np.arange(len(used))
        self.columns = np.zeros((len(used) + 1, self.words), dtype=np.dtype("<u8"))
        step = max(1, CHUNK_BYTES // max(n, 1))
        for a in range(0, len(used), step):  # the columns packed a block at a time
            block = np.asarray(p.X[:, used[a : a + step]], dtype=bool).T
            self.columns[a : a + len(block)] = _pack(block, self.words)
        self.all = _pack(np.ones((1, n), dtype=bool), self.words)[0]
        y = p.y.astype(bool)
        cells = [(p.groups == g) & (y == label) for g in range(p.n_groups) for label in (0, 1)]
        self.weighted = p.sample_weight is not None
        w = p.weights
        self.cell_total = np.array([w[c].sum() if self.weighted else c.sum() for c in cells])
        self.cell_bits = _pack(np.array(cells, dtype=bool).reshape(len(cells), n), self.words)
        self.cell_rows = [np.flatnonzero(c) for c in cells]
        self.cell_weights = [w[r] for r in self.cell_rows] if self.weighted else None

    def predict(self, rules: np.ndarray, starts: np.ndarray, defaults: np.ndarray) -> np.ndarray:
        """The predictions (as bits, one row a list) of the lists whose rules are
        ``rules[starts[i]:starts[i + 1]]``: the default, then each rule from the last to the
        first overwriting the rows it captures (the first rule that captures a row decides)."""
        lengths = np.diff(starts)
        pred = np.where(defaults[:, None] == 1, self.all[None, :], np.uint64(0))
        pred = pred.astype(np.dtype("<u8"))
        for k in range(int(lengths.max(initial=0)) - 1, -1, -1):
            has = lengths > k
            code = rules[np.where(has, starts[:-1] + k, 0)] if len(rules) else np.zeros(0)
            row = np.where(has, self.row[(code >> 1).astype(np.int64)], len(self.columns) - 1)
            captured = self.columns[row]
            says = (-np.where(has, code & 1, 0).astype(np.int64)).view(np.uint64)[:, None]
            pred &= ~captured
            pred |= captured & says
        return pred

    def counts(self, pred: np.ndarray) -> np.ndarray:
        """Confusion counts (C, groups, 4): tn, fp, fn, tp of each list of ``pred``."""
        if self.weighted:
            every = _unpack(pred, self.n)
            positive = np.stack(
                [every[:, r] @ w for r, w in zip(self.cell_rows, self.cell_weights, strict=True)],
                axis=1,
            )
        else:
            positive = np.stack([_popcount(pred & c[None, :]) for c in self.cell_bits], axis=1)
        positive = positive.reshape(len(pred), -1, 2)  # (list, group, label)
        total = self.cell_total.reshape(1, -1, 2)
        fp, tp = positive[:, :, 0], positive[:, :, 1]
        tn, fn = total[:, :, 0] - fp, total[:, :, 1] - tp
        return np.stack([tn, fp, fn, tp], axis=2)

    def scores(self, pred: np.ndarray, p: Problem, columns: Sequence[str]) -> dict[str, Any]:
        """The numeric columns of :meth:`RashomonSet.to_frame` for the lists of ``pred``:
        the same values, in the same order of operations, as
        :func:`~fairlist.metrics.counts_by_group` and ``unfairness_from_counts``."""
        cells = self.counts(pred).astype(np.float64)
        named = {c: cells[:, :, i] for i, c in enumerate(("tn", "fp", "fn", "tp"))}

        def rate(name: str) -> np.ndarray:
            r = RATES[name]
            num = sum(named[c] for c in r.numerator)
            den = sum(named[c] for c in r.denominator)
            return np.divide(num, den, out=np.zeros_like(num), where=den != 0)

        out: dict[str, Any] = {}
        by_name = {i.short_name: i for i in METRICS.values()}
        for column in columns:
            if column == "accuracy":
                wrong = (named["fp"] + named["fn"]).sum(axis=1)
                out[column] = 1.0 - wrong / p.total_weight
            elif column in by_name:
                total = np.zeros(len(pred))
                for name in by_name[column].rates:
                    values = rate(name)
                    total = total + (values.max(axis=1) - values.min(axis=1))
                out[column] = total
            else:  # positive_rate[group]
                g = list(p.group_names).index(column[len("positive_rate[") : -1])
                out[column] = rate("positive_rate")[:, g]
        return out


def _short_name(metric: Any) -> str:
    return Metric.parse(metric).short_name


def rashomon_set(
    X: Any,
    y: Any,
    sensitive_features: Any = None,
    *,
    metric: Any = "statistical_parity",
    epsilon: float | None = None,
    lam: float = DEFAULT_LAM,
    max_length: int | None = None,
    delta: float,
    max_lists: int | None = 100_000,
    engine: str = "bnb",
    protected: Any = None,
    sample_weight: Any = None,
    binarizer: Any = "auto",
    policy: str = "bfs",
    max_nodes: int | None = None,
    time_limit: float | None = None,
    memory_limit_mb: float | None = None,
) -> RashomonSet:
    """Every fair rule list whose objective is within ``delta`` of the optimum.

    One branch-and-bound search keeps every fair list within ``delta`` of the best list found
    so far and prunes only what cannot come within it; see :mod:`fairlist.rashomon`.

    Parameters
    ----------
    X, y, sensitive_features, protected, sample_weight, binarizer
        As :meth:`FairRuleListClassifier.fit <fairlist.FairRuleListClassifier.fit>` takes them:
        0/1 antecedents, or a raw table that the binarizer turns into antecedents.
    metric, epsilon, lam, max_length
        The problem, as the estimator takes it (``epsilon=None``: no cap).
    delta : float
        The set's width (>= 0): members have objectives at most ``optimum + delta`` (+1e-9).
        A larger value than :func:`max_useful_delta` (``inf`` included) is lowered to it, with
        a warning: the set is then every fair list.
    max_lists : int or None
        Return at most this many lists (None: no cap): the ``max_lists`` of least objective
        (ties in the canonical order), certified as such; the search prunes above the
        ``max_lists``-th it holds, so a small cap also saves work. The set then says below
        which objective it is complete.
    engine : {"bnb", "cpsat"}
        The branch-and-bound's Rashomon mode, or CP-SAT's enumeration of every solution under
        the objective bound (:mod:`fairlist.solvers.cpsat_rashomon`: for small problems, as a
        cross-check; it needs ``max_length`` and exact weights).
    policy : str
        The branch-and-bound's search order (it changes the work, never a complete set).
    max_nodes, time_limit, memory_limit_mb
        Limits (None: none; ``memory_limit_mb`` None: three quarters of the machine's memory);
        a limit, or Ctrl-C, returns the partial set, marked incomplete. ``memory_limit_mb``
        counts the search's structures and the lists, with the room they take when handed to
        Python (the set's arrays).

    Returns
    -------
    RashomonSet

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
    >>> rs = rashomon_set(X, [1, 1, 0, 0], [1, 0, 1, 0], lam=0.01, delta=0.3)
    >>> rs.complete, len(rs), rs.optimum
    (True, 6, 0.01)
    >>> print(rs.rule_lists[0])
    if [x0] then [1]
    else [0]
    """
    start = time.perf_counter()
    validate_params(
        "rashomon_set",
        PARAMETER_CONSTRAINTS,
        {"delta": delta, "max_lists": max_lists, "engine": engine, "policy": policy},
    )
    from .estimator import FairRuleListClassifier

    est = FairRuleListClassifier(
        metric=metric,
        epsilon=epsilon,
        lam=lam,
        max_length=max_length,
        binarizer=binarizer,
        max_nodes=max_nodes,
        time_limit=time_limit,
        memory_limit_mb=memory_limit_mb,
    )
    from .estimator import PARAMETER_CONSTRAINTS as ESTIMATOR_CONSTRAINTS

    validate_params("rashomon_set", ESTIMATOR_CONSTRAINTS, est.get_params(deep=False))
    problem = est.prepare(X, y, sensitive_features, protected, sample_weight, start=start)
    problem = problem.with_limits(problem.limits.minus(time.perf_counter() - start))
    if engine == "cpsat":
        return cpsat_rashomon(problem, float(delta), max_lists)
    return search_rashomon(problem, float(delta), max_lists, policy=policy)


def search_rashomon(
    problem: Problem,
    delta: float,
    max_lists: int | None,
    *,
    policy: str = "bfs",
    lower_delta: bool = True,
    **options: Any,
) -> RashomonSet:
    """The Rashomon set of a :class:`~fairlist.solvers.Problem` (:func:`rashomon_set` after
    the data are prepared); ``options``: further :class:`~fairlist.solvers.BnBSolver`
    parameters (the switches of the bounds); ``lower_delta=False``: the core gets ``delta``
    as given (finite), not lowered to :func:`max_useful_delta` (the same set: a test switch)."""
    solver = BnBSolver(policy=policy, **options)
    requested = delta
    delta = useful_delta(problem, delta) if lower_delta else float(delta)
    weights = engine_weights(problem)
    if not weights.exact:
        raise DataError(
            "sample_weight: the Rashomon set needs weights the engine reads exactly (decimals, "
            "simple fractions, integers, totalling at most 2**31 units); these are rounded"
        )
    raw, kept, representative = solver.solve_rashomon(problem, delta, max_lists, weights)
    found = _make_set(problem, raw, kept, representative, delta)
    if delta != requested:
        found.stats["delta_requested"] = requested
    return found


def _make_set(problem: Problem, raw: dict, kept, representative, delta: float) -> RashomonSet:
    rules = raw["rashomon_rules"]  # codes over the kept columns: to the problem's columns
    if len(kept) != problem.n_antecedents or np.any(kept != np.arange(len(kept))):
        codes = (np.repeat(kept.astype(np.uint32), 2) << 1) | np.tile(np.uint32([0, 1]), len(kept))
        np.take(codes, rules, out=rules, mode="clip")  # in place: one gather
    stop = StopReason[raw["stop_reason"].name]
    below = float(raw["rashomon_complete_below"])
    if stop is StopReason.COMPLETED and not math.isinf(below):  # max_lists cut a finished set
        stop = StopReason.MAX_LISTS
    optimum = float(raw["objective"])
    status = raw["status"].name
    return RashomonSet(
        rules=rules,
        starts=np.asarray(raw["rashomon_starts"]).view(np.int64),
        defaults=raw["rashomon_defaults"],
        objectives=raw["rashomon_objectives"],
        optimum=optimum,
        optimum_lower_bound=optimum if status == "OPTIMAL" else float(raw["lower_bound"]),
        delta=delta,
        complete=math.isinf(below) and stop is StopReason.COMPLETED,
        complete_below=below,
        stop_reason=stop,
        merged=_merged(problem, kept, representative),
        problem=problem,
        stats=dict(raw["stats"]) | {"status": status.lower()},
    )


def _merged(problem: Problem, kept, representative) -> dict[str, tuple[str, ...]]:
    """Each kept antecedent that stands for identical columns, with their names."""
    names = problem.feature_names
    merged: dict[str, list[str]] = {}
    for j, slot in enumerate(representative):
        if kept[slot] != j:
            merged.setdefault(names[kept[slot]], []).append(names[j])
    return {k: tuple(v) for k, v in merged.items()}


def cpsat_rashomon(problem: Problem, delta: float, max_lists: int | None) -> RashomonSet:
    """The Rashomon set of a :class:`~fairlist.solvers.Problem` by CP-SAT (small problems)."""
    from .solvers.cpsat_rashomon import enumerate_rashomon

    start = time.perf_counter()
    delta, requested = useful_delta(problem, delta), delta
    if problem.max_length is None:  # the optimum's length bound may be too short for the set
        raise InvalidParameterError(
            "engine='cpsat' enumerates the Rashomon set under a length cap: set max_length"
        )
    max_length = min(problem.max_length, problem.n_antecedents)
    memory = problem.limits.memory_limit_mb
    memory = default_memory_limit_mb() if memory is None else memory
    found = enumerate_rashomon(
        problem, max_length, delta, None, problem.limits.time_limit, memory * 2**20 or None
    )
    kept, representative = distinct_columns(problem.X)
    lists = set()
    for antecedents, predictions, default in found.lists:  # twins: the first of their set
        mapped = [int(kept[representative[j]]) for j in antecedents]
        lists.add((tuple(zip(mapped, predictions, strict=True)), default))
    scored = []
    for rules, default in lists:
        rule_list = problem.rule_list([j for j, _ in rules], [q for _, q in rules], default)
        objective = problem.evaluate(rule_list).objective
        key = (len(rules), [j for j, _ in rules], [q for _, q in rules], default)
        scored.append((objective, key))
    scored.sort()
    below = math.inf if found.complete else 0.0
    stop = StopReason.COMPLETED if found.complete else StopReason.TIME_LIMIT
    if found.memory_cut:  # the enumeration's order is not the objective's: nothing certified
        stop = StopReason.MEMORY_LIMIT
    if max_lists is not None and len(scored) > max_lists:
        below = min(below, scored[max_lists][0])
        stop = StopReason.MAX_LISTS if found.complete else stop
        scored = scored[:max_lists]
    optimum = scored[0][0] if scored else math.inf
    codes = [j << 1 | q for _, (_, ids, qs, _) in scored for j, q in zip(ids, qs, strict=True)]
    stats: dict[str, Any] = {"engine": "cpsat", "seconds": time.perf_counter() - start}
    if delta != requested:
        stats["delta_requested"] = requested
    return RashomonSet(
        rules=np.asarray(codes, dtype=np.uint32),
        starts=np.cumsum([0] + [key[0] for _, key in scored]),
        defaults=np.asarray([key[3] for _, key in scored], dtype=np.uint8),
        objectives=np.asarray([item[0] for item in scored], dtype=np.float64),
        optimum=optimum,
        optimum_lower_bound=optimum if found.optimal else 0.0,
        delta=delta,
        complete=found.complete and math.isinf(below),
        complete_below=below,
        stop_reason=stop,
        merged=_merged(problem, kept, representative),
        problem=problem,
        stats=stats,
    )


def max_useful_delta(problem: Problem) -> float:
    """The largest ``delta`` that can matter: with it every fair list is in the set.

    Why: a list of the space has ``L`` rules over distinct antecedents, each capturing a
    sample of positive weight that no earlier rule captured, so ``L`` is at most ``max_length``,
    the number of antecedents and the number of such samples, call the least ``L_max``. Its
    objective ``errors / n + lam * L`` is then at most ``1 + lam * L_max`` (errors <= n; in
    floating point too: division, product and sum round monotonically), and the optimum is at
    least 0. So every list has an objective at most ``optimum + 1 + lam * L_max``, and any
    larger ``delta`` gives the same set while its threshold (``optimum + delta``) only costs
    the search arithmetic on huge numbers.

    >>> import numpy as np
    >>> from fairlist.solvers import Problem
    >>> p = Problem(np.eye(4, 3, dtype=np.uint8), [1, 0, 1, 0], [1, 1, 0, 0], lam=0.01)
    >>> max_useful_delta(p)  # at most 3 rules: 1 + 0.01 * 3
    1.03
    """
    length = problem.n_antecedents
    if problem.max_length is not None:
        length = min(length, problem.max_length)
    length = min(length, int(np.count_nonzero(problem.weights > 0)))
    return 1.0 + problem.lam * length


def useful_delta(problem: Problem, delta: float) -> float:
    """``delta``, lowered to :func:`max_useful_delta` (with a warning that says so) when it is
    larger (``inf`` included): the set is then every fair list."""
    bound = max_useful_delta(problem)
    if not delta > bound:
        return float(delta)
    warnings.warn(
        f"delta={delta:g} lowered to {bound:.6g} (1 + lam * the most rules a list can have): no "
        "two rule lists' objectives differ by more, so the set is every fair list",
        stacklevel=3,
    )
    return bound
