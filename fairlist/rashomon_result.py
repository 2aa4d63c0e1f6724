"""The Rashomon set as :func:`~fairlist.rashomon.rashomon_set` returns it, and its views.

:class:`RashomonSet` holds the lists compactly, in the flat arrays the engine returns (never one
Python object per list); its views (:meth:`~RashomonSet.to_frame`, :meth:`~RashomonSet.predictions`,
:meth:`~RashomonSet.fairest`, :meth:`~RashomonSet.multiplicity`,
:meth:`~RashomonSet.antecedent_usage`, :meth:`~RashomonSet.summary`, the JSON document) work on
them a chunk of :data:`CHUNK_BYTES` at a time, the predictions as bits. The search that makes the
set is in :mod:`fairlist.rashomon`.

**Classifiers, not spellings.** Two lists that predict the same label for every training row are
one classifier written two ways (a rule and its negation with the predictions swapped; rules that
capture disjoint rows, in another order). The set groups its lists by their prediction vectors
(:attr:`~RashomonSet.n_classifiers`, :meth:`~RashomonSet.classifiers`): each vector is hashed
from its packed bits with numpy, and every list is compared bit for bit with the first list of its
hash before it joins it (a collision only costs an exact regrouping of the lists concerned), so
the grouping is exact and builds no Python object per list. A classifier is shown by its first
list in the set's order, which is its shortest spelling (equal predictions, equal errors: the
objective orders the spellings by length), then the canonical one.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import textwrap
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np
import pandas as pd

from ._json import dumps
from .bits import hash_rows, pack_rows, popcount_rows, unpack_rows
from .errors import InvalidParameterError
from .metric_table import METRICS, RATES, Metric
from .rulelist import Rule, RuleList
from .solvers.base import Problem, StopReason

__all__ = ["RashomonSet", "CHUNK_BYTES", "BY"]

#: What the views count: each classifier once (its lists predict alike on the training rows),
#: or each list (every spelling of a classifier).
BY = ("classifiers", "lists")

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
            yield from unpack_rows(pred, n)

    def to_frame(
        self, start: int = 0, stop: int | None = None, *, columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """One row per member: objective, accuracy, every metric's unfairness (columns named by
        the metrics' short names), each group's positive rate (``positive_rate[group]``),
        length, the antecedents used, the rules' predictions (``consequents``, as class
        labels), the default prediction, and the list itself (its text).

        ``start``, ``stop``: the members ``start .. stop`` only (the index holds their
        positions in the set); ``columns``: only these columns. The numbers are computed with
        numpy over the set's arrays, chunk by chunk; the antecedents, consequents and text
        hold one Python object per member, so ask for them on the rows needed.
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
        if "consequents" in chosen:
            labels = p.labels
            data["consequents"] = [
                tuple(labels[code & 1] for code in self.rules[a:b].tolist())
                for a, b in zip(
                    self.starts[start:stop], self.starts[start + 1 : stop + 1], strict=True
                )
            ]
        if "default" in chosen:
            data["default"] = np.asarray(p.labels, dtype=object)[self.defaults[start:stop]]
        if "rule_list" in chosen:
            data["rule_list"] = [str(self._rule_list(k)) for k in range(start, stop)]
        index = pd.RangeIndex(start, stop)
        return pd.DataFrame({c: data[c] for c in chosen}, index=index, columns=chosen)

    # ------------------------------------------------------------------ classifiers
    @property
    def n_lists(self) -> int:
        """The number of lists (spellings) in the set: ``len(rs)``."""
        return len(self)

    @property
    def n_classifiers(self) -> int:
        """The number of classifiers in the set: of distinct prediction vectors on the
        training rows (one pass over the set, then cached)."""
        return len(self._classes().representatives)

    @property
    def classifier_of(self) -> np.ndarray:
        """Each list's classifier (int64): classifiers are numbered in the order of their
        first list in the set, so classifier 0 holds the optimum."""
        return self._classes().classifier_of

    @property
    def representatives(self) -> np.ndarray:
        """Each classifier's first list in the set (its shortest spelling, then the canonical
        one): an index into the set."""
        return self._classes().representatives

    @property
    def spellings(self) -> np.ndarray:
        """Each classifier's number of lists in the set."""
        return np.bincount(self.classifier_of, minlength=self.n_classifiers)

    def classifiers(
        self, start: int = 0, stop: int | None = None, *, columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """One row per classifier (index: its number), in the set's order of their shortest
        spellings: ``list`` (the index in the set of that spelling), ``spellings`` (the lists
        of the set that predict alike) and :meth:`to_frame`'s columns of that spelling.
        ``start``, ``stop``: those classifiers only; ``columns``: only these of
        :meth:`to_frame`'s columns.

        >>> import numpy as np
        >>> from fairlist import rashomon_set
        >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
        >>> rs = rashomon_set(X, [1, 1, 0, 0], [1, 0, 1, 0], lam=0.01, delta=0.3)
        >>> rs.n_lists, rs.n_classifiers
        (6, 4)
        >>> rs.classifiers(columns=["objective", "antecedents", "consequents", "default"])
           list  spellings  objective antecedents consequents default
        0     0          2       0.01       (x0,)        (1,)       0
        1     2          1       0.27    (x0, x1)      (1, 0)       1
        2     3          2       0.27    (x0, x1)      (1, 1)       0
        3     4          1       0.27    (x1, x0)      (0, 1)       0

        Classifier 0's second spelling, list 1, adds ``x1 -> 0`` before a default of 0: the
        same predictions, one rule longer.
        """
        reps = self.representatives
        stop = len(reps) if stop is None else max(start, min(stop, len(reps)))
        start = max(0, min(start, stop))
        chosen = reps[start:stop]
        frame = self._subset(chosen).to_frame(columns=columns)
        frame.index = pd.RangeIndex(start, stop)
        frame.insert(0, "spellings", self.spellings[start:stop])
        frame.insert(0, "list", chosen)
        return frame

    def _classes(self, deadline: float | None = None) -> _Classes:
        """The grouping of the lists by prediction vector (cached when it covers the set):
        the lists hashed chunk by chunk, each list compared bit for bit with the first list
        of its hash, the rare mismatches (hash collisions) regrouped exactly. ``deadline``
        (a ``time.perf_counter()`` time): the grouping of the first lists covered by then
        (a prefix of the set is grouped as the whole set would group it: a classifier's
        first list is the same)."""
        cached = self._cache.get("classes")
        if cached is not None:
            return cached
        n = len(self)
        hashes = np.empty(n, dtype=np.uint64)
        done = 0
        for i0, i1, pred in self._chunks(deadline=deadline):
            hashes[i0:i1] = hash_rows(pred)
            done = i1
        hashes = hashes[:done]
        _, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
        first_of = first[inverse.ravel()].astype(np.int64)  # the first list of each hash
        todo = np.flatnonzero(first_of != np.arange(done))
        bits = self._bits() if done else None
        step = max(1, CHUNK_BYTES // (bits.words * 8 * 8)) if bits is not None else 1
        collided = []
        for a in range(0, len(todo), step):
            if deadline is not None and time.perf_counter() >= deadline:
                done = int(todo[a])  # every list before it is grouped
                break
            lists = todo[a : a + step]
            mine, theirs = self._predict(lists), self._predict(first_of[lists])
            collided.append(lists[np.any(mine != theirs, axis=1)])
        first_of = first_of[:done]
        collided = np.concatenate(collided) if collided else np.zeros(0, dtype=np.int64)
        collided = collided[collided < done]
        if len(collided):  # a hash shared by different vectors: group those lists exactly
            seen: dict[bytes, int] = {}
            for a in range(0, len(collided), step):
                lists = collided[a : a + step]
                for k, row in zip(lists.tolist(), self._predict(lists), strict=True):
                    first_of[k] = seen.setdefault(row.tobytes(), k)
        representatives = np.flatnonzero(first_of == np.arange(done))
        classes = _Classes(
            np.searchsorted(representatives, first_of).astype(np.int64), representatives, done
        )
        if done == n:
            self._cache["classes"] = classes
        return classes

    def _gather(self, lists: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rules and starts of the lists ``lists`` (indices into the set), concatenated."""
        lists = np.asarray(lists, dtype=np.int64)
        lengths = self.starts[lists + 1] - self.starts[lists]
        starts = np.zeros(len(lists) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        where = np.repeat(self.starts[lists] - starts[:-1], lengths) + np.arange(starts[-1])
        return self.rules[where], starts

    def _predict(self, lists: np.ndarray) -> np.ndarray:
        """The predictions (bits, one row a list) of the lists ``lists``."""
        rules, starts = self._gather(lists)
        return self._bits().predict(rules, starts, self.defaults[lists])

    def _subset(self, lists: np.ndarray) -> RashomonSet:
        """The lists ``lists`` (indices into the set) as a set of their own (for the views:
        its certificate is not this set's), sharing this set's bits of the columns."""
        lists = np.asarray(lists, dtype=np.int64)
        rules, starts = self._gather(lists)
        sub = dataclasses.replace(
            self,
            rules=rules,
            starts=starts,
            defaults=self.defaults[lists],
            objectives=self.objectives[lists],
        )
        if "bits" in self._cache:
            sub._cache["bits"] = self._cache["bits"]
        return sub

    # ------------------------------------------------------------------ views
    def fairest(self, metric: Any = None, frame: pd.DataFrame | None = None) -> int:
        """Index of the member of least unfairness under ``metric`` (default: the problem's),
        the lowest objective among ties: the less discriminatory alternative within delta
        (``frame``: :meth:`to_frame`, if already computed).

        It is the shortest (then canonical) spelling of the fairest classifier: of the lists
        of least unfairness and, among them, least objective, the first in the set's order
        is the first list of its classifier (that classifier's first list has the same
        unfairness, an objective no larger, and comes no later). So only each classifier's
        first list is scored (unless ``frame`` is given); :func:`fairlist.fairest_within`
        answers the same question without the set, with a certificate."""
        name = _short_name(self.problem.metric if metric is None else metric)
        if not len(self):
            raise ValueError("the Rashomon set is empty: no list meets the cap")
        if frame is None:
            reps = self.representatives
            frame = self._subset(reps).to_frame(columns=["objective", name])
            frame.index = pd.Index(reps)
        order = np.lexsort((frame["objective"].to_numpy(), frame[name].to_numpy()))
        return int(frame.index[order[0]])

    def antecedent_usage(self, by: str = "classifiers") -> pd.Series:
        """How many classifiers use each antecedent in their shortest spelling (``by=
        "lists"``: how many lists use it, every spelling counted), most used first (ties:
        the one met first in the set's order); antecedents none uses are left out."""
        source = self._subset(self.representatives) if _by(by) == "classifiers" else self
        counts, first = source._column_use()
        used = np.flatnonzero(counts)
        counts, first = counts[used], first[used]
        order = np.lexsort((first, -counts))
        names = [self.problem.feature_names[j] for j in used[order]]
        return pd.Series(counts[order], index=names, dtype=np.int64, name=_by(by))

    def multiplicity(self, by: str = "classifiers") -> pd.DataFrame:
        """Predictive multiplicity by group, one row per group plus ``all``, over the
        set's classifiers (``by="lists"``: every spelling counted as one more model):

        - ``rows``: the group's rows;
        - ``ambiguity``: the share of its rows (by weight) whose prediction differs between
          two classifiers of the set (the same either way);
        - ``discrepancy``: the largest share of its rows (by weight) on which one classifier
          of the set disagrees with the optimal one (the set's first list; the same either way);
        - ``disagreement``: the mean over its rows (by weight) of the chance that two models
          drawn at random from the set (independently, each classifier, or each list, alike
          likely) predict the row differently, ``2 p (1 - p)`` with ``p`` the share of them
          that predict it positive: this one counts the models.
        """
        source = self._subset(self.representatives) if _by(by) == "classifiers" else self
        return _multiplicity(self.problem, source._votes(source._chunks()))

    def _votes(self, chunks: Iterator[tuple[int, int, np.ndarray]]) -> _Votes | None:
        """The multiplicity's sums over the lists of ``chunks`` (None: none)."""
        votes = None
        for i0, _, pred in chunks:
            if votes is None:
                votes = _Votes(self._bits(), pred[0] if i0 == 0 else self._predict([0])[0])
            votes.add(pred)
        return votes

    # ------------------------------------------------------------------ reports
    def to_dict(self, frame: pd.DataFrame | None = None) -> dict[str, Any]:
        """The set as plain data (``fairlist rashomon --json``): its certificate, the feature
        names once, ``n_classifiers`` (:attr:`n_classifiers`: ``size`` counts the lists), and,
        per list, the rows of :meth:`to_frame` with its ``classifier`` (:attr:`classifier_of`)
        and the list as a rule-list document (without the feature names); ``frame``: that
        frame, if already computed. ``listed``: the number of lists given (``size`` unless the
        command line's output was cut by its time limit).

        >>> import numpy as np
        >>> from fairlist import rashomon_set
        >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], dtype=np.uint8)
        >>> doc = rashomon_set(X, [1, 1, 0, 0], [1, 0, 1, 0], lam=0.01, delta=0.3).to_dict()
        >>> doc["size"], doc["n_classifiers"], [d["classifier"] for d in doc["lists"]]
        (6, 4, [0, 0, 1, 2, 3, 2])
        """
        classes = self._classes()
        head = self._head_doc(classes)
        head["lists"] = list(self._list_docs(0, len(self), frame, classes.classifier_of))
        head["listed"] = len(head["lists"])
        return head

    def write_json(self, out: TextIO, *, deadline: float | None = None) -> int:
        """Writes :meth:`to_dict`'s document to ``out`` (the same text as ``dumps``), the lists
        chunk by chunk (never all at once), and stops listing them once ``deadline`` (a
        ``time.perf_counter()`` time) has passed: the document stays valid, ``listed`` says how
        many lists it holds. Returns that number. The lists are grouped into classifiers first,
        under the same deadline: the lists the grouping did not reach are not listed, and
        ``n_classifiers`` is null unless it covered the set. A Ctrl-C while they are grouped
        writes the document without lists (``n_classifiers`` null), then goes on up."""
        try:
            classes = self._classes(deadline)
        except KeyboardInterrupt:
            out.write(dumps(self._head_doc(None) | {"lists": [], "listed": 0}) + "\n")
            raise
        head = self._head_doc(classes)
        n = min(len(self), classes.covered)
        if not n:
            out.write(dumps(head | {"lists": [], "listed": 0}) + "\n")
            return 0
        text = dumps(head)  # ends with "\n}"
        out.write(text[:-2] + ',\n  "lists": [')
        listed = 0
        step = JSON_LISTS
        try:  # closed whatever happens (Ctrl-C included): the document stays valid
            for i0 in range(0, n, step):
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                docs = self._list_docs(i0, min(i0 + step, n), None, classes.classifier_of)
                items = [textwrap.indent(dumps(doc), "    ") for doc in docs]
                out.write(("\n" if listed == 0 else ",\n") + ",\n".join(items))
                listed += len(items)
        finally:
            out.write(("\n  ]" if listed else "]") + f',\n  "listed": {listed}\n}}\n')
        return listed

    def _head_doc(self, classes: _Classes | None) -> dict[str, Any]:
        """The document's fields before the lists; ``classes``: the grouping (None: not
        done), ``n_classifiers`` null unless it covers the set."""
        whole = classes is not None and classes.covered == len(self)
        return {
            "size": len(self),
            "n_classifiers": len(classes.representatives) if whole else None,
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
        self, start: int, stop: int, frame: pd.DataFrame | None, classifier_of: np.ndarray
    ) -> Iterator[dict[str, Any]]:
        """Lists start .. stop as documents; ``classifier_of``: their classifiers (a grouping
        that covers them at least)."""
        columns = [c for c in _frame_columns(self.problem) if c not in _NOT_IN_JSON]
        if frame is None:  # the list's text is not needed: its document replaces it
            frame = self.to_frame(start, stop, columns=columns)
        else:
            frame = frame.iloc[start:stop][columns]
        for k, row in zip(range(start, stop), frame.to_dict("records"), strict=True):
            row["antecedents"] = list(row["antecedents"])
            row["classifier"] = int(classifier_of[k])
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
        kept = {k: v for k, v in self._cache.items() if k not in ("column_use", "classes")}
        first._cache.update(kept)
        classes = self._cache.get("classes")
        if classes is not None:  # restricted: a prefix's classifiers are numbered alike
            reps = classes.representatives
            first._cache["classes"] = _Classes(classes.classifier_of[:k], reps[reps < k], k)
        return first

    def summary(
        self, rows: int = 20, frame: pd.DataFrame | None = None, *, deadline: float | None = None
    ) -> str:
        """A text report: the certificate, the number of classifiers, the first ``rows``
        classifiers (each by its shortest spelling, with the number of its spellings), the
        fairest classifier, the antecedents most used, the predictive multiplicity by group,
        and the identical columns merged.

        ``frame``: :meth:`to_frame`, if already computed (its rows of the shown lists are
        reused). ``deadline`` (a ``time.perf_counter()`` time): the grouping and the views,
        which read every list, cover the lists done by then, and the report says so.
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
        if not len(self):
            return "\n".join([*lines, "no rule list meets the cap", *self._merged_lines()]), 0
        classes = self._classes(deadline)
        reps = classes.representatives
        # one pass over the classifiers for the fairest one and the multiplicity
        sub = self._subset(reps)
        unfairness: list[np.ndarray] = []

        def scored() -> Iterator[tuple[int, int, np.ndarray]]:
            for i0, i1, pred in sub._chunks(deadline=deadline):
                unfairness.append(sub._bits().scores(pred, self.problem, [metric])[metric])
                yield i0, i1, pred

        votes = sub._votes(scored())
        scored_reps = sum(len(u) for u in unfairness)
        done = classes.covered
        if scored_reps < len(reps):  # the lists before the first classifier left out
            done = int(reps[scored_reps])
        reps = reps[:scored_reps]
        if done < len(self):
            lines.append(
                f"the time limit cut the views below: they cover the first {done} of "
                f"{len(self)} lists"
            )
        if done:
            spellings = np.bincount(classes.classifier_of[:done], minlength=len(reps))
            lines.append(
                f"{len(reps)} classifiers among the {done} lists (lists that predict alike on "
                "the training rows are one classifier, shown by its shortest spelling)"
            )
            shown_columns = ["objective", "accuracy", metric, "length"]
            chosen = reps[:rows]
            if frame is None:
                shown = self._subset(chosen).to_frame(columns=shown_columns)
            else:
                shown = frame[shown_columns].iloc[chosen].reset_index(drop=True)
            shown["spellings"] = spellings[: len(chosen)]
            shown["rules"] = [self._compact(k) for k in chosen.tolist()]
            shown.index = pd.RangeIndex(len(chosen))
            lines.append(shown.to_string(float_format=lambda v: f"{v:.4f}"))
            if len(reps) > rows:
                lines.append(f"... {len(reps) - rows} more classifiers")
            values = np.concatenate(unfairness)
            best = int(np.lexsort((self.objectives[reps], values))[0])
            lines.append(
                f"fairest classifier: #{best}, list #{reps[best]} ({metric} {values[best]:.4f}, "
                f"objective {self.objectives[reps[best]]:.4f}, {spellings[best]} spelling"
                f"{'s' if spellings[best] != 1 else ''})\n{self._rule_list(int(reps[best]))}"
            )
            usage = sub.head(len(reps)).antecedent_usage(by="lists").head(10)
            used = usage.to_string(name=False) if len(usage) else "none (no rule)"
            lines.append("classifiers using each antecedent:\n" + used)
            lines.append("predictive multiplicity by group (over the classifiers):")
            table = _multiplicity(self.problem, votes)
            lines.append(table.to_string(float_format=lambda v: f"{v:.4f}"))
        lines.extend(self._merged_lines())
        return "\n".join(lines), done

    def _merged_lines(self) -> list[str]:
        """The identical columns merged before the search, once (after the tables)."""
        if not self.merged:
            return []
        pairs = [f"{kept} = {', '.join(twins)}" for kept, twins in self.merged.items()]
        return [
            f"identical columns merged ({len(pairs)}; the first name stands for the others in "
            "every list): " + "; ".join(pairs)
        ]

    def _compact(self, k: int) -> str:
        """List ``k`` on one line, its consequents shown: ``a -> 1; b -> 0; else 0``."""
        names, labels = self.problem.feature_names, self.problem.labels
        rules = [
            f"{names[code >> 1]} -> {labels[code & 1]}"
            for code in self.rules[self.starts[k] : self.starts[k + 1]].tolist()
        ]
        return "; ".join([*rules, f"else {labels[int(self.defaults[k])]}"])


#: The columns of RashomonSet.to_frame that need no predictions.
_STORED_COLUMNS = ("objective", "length", "antecedents", "consequents", "default", "rule_list")

#: The columns of RashomonSet.to_frame that the JSON lists leave out (their rule-list document
#: holds them).
_NOT_IN_JSON = ("consequents", "default", "rule_list")


def _frame_columns(p: Problem) -> list[str]:
    columns = ["objective", "accuracy", *(i.short_name for i in METRICS.values())]
    columns += [f"positive_rate[{g}]" for g in p.group_names]
    return [*columns, "length", "antecedents", "consequents", "default", "rule_list"]


@dataclass(frozen=True)
class _Classes:
    """The set's lists grouped by prediction vector (:meth:`RashomonSet._classes`)."""

    classifier_of: np.ndarray  # each grouped list's classifier (int64)
    representatives: np.ndarray  # each classifier's first list (int64, increasing)
    covered: int  # the lists grouped: the first ``covered`` of the set


def _by(by: str) -> str:
    if by not in BY:
        raise InvalidParameterError(f"by: {by!r} is not one of {BY}")
    return by


class _Votes:
    """The sums the multiplicity reads, over the models (lists) added: per row the models
    that predict it positive, and per model the weight of each group's rows (and of all) on
    which it disagrees with ``base`` (the optimal model's bits), the largest so far."""

    def __init__(self, bits: _Bits, base: np.ndarray) -> None:
        self.bits, self.base = bits, base
        self.positive = np.zeros(bits.n, dtype=np.int64)
        self.models = 0
        self.differ = np.zeros(len(bits.group_bits) + 1)

    def add(self, pred: np.ndarray) -> None:
        bits = self.bits
        self.positive += unpack_rows(pred, bits.n).sum(axis=0, dtype=np.int64)
        self.models += len(pred)
        flips = pred ^ self.base[None, :]
        if bits.weighted:
            every = unpack_rows(flips, bits.n)
            pairs = zip(bits.group_rows, bits.group_w, strict=True)
            per_group = [every[:, r] @ w for r, w in pairs]
            per_group.append(every @ bits.weights)
        else:
            per_group = [popcount_rows(flips & g[None, :]) for g in bits.group_bits]
            per_group.append(popcount_rows(flips))
        most = np.stack(per_group, axis=1).max(axis=0)
        np.maximum(self.differ, most, out=self.differ)


def _multiplicity(p: Problem, votes: _Votes | None) -> pd.DataFrame:
    """:meth:`RashomonSet.multiplicity` from its sums over the models (None: an empty set)."""
    n = p.n_samples
    if votes is None or votes.models == 0:
        positive, models, differ = np.zeros(n), 1, np.zeros(p.n_groups + 1)
    else:
        positive, models, differ = votes.positive, votes.models, votes.differ
    changes = (positive > 0) & (positive < models)
    share = positive / models
    disagree = 2.0 * share * (1.0 - share)
    w = p.weights
    rows = {}
    masks = [p.groups == g for g in range(p.n_groups)] + [np.ones(n, dtype=bool)]
    for k, (name, mine) in enumerate(zip([*p.group_names, "all"], masks, strict=True)):
        total = float(w[mine].sum())
        rows[name] = {
            "rows": int(mine.sum()),
            "ambiguity": float(w[mine & changes].sum()) / total if total else 0.0,
            "discrepancy": float(differ[k]) / total if total else 0.0,
            "disagreement": float(w[mine] @ disagree[mine]) / total if total else 0.0,
        }
    return pd.DataFrame.from_dict(rows, orient="index")


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
            self.columns[a : a + len(block)] = pack_rows(block, self.words)
        self.all = pack_rows(np.ones((1, n), dtype=bool), self.words)[0]
        y = p.y.astype(bool)
        cells = [(p.groups == g) & (y == label) for g in range(p.n_groups) for label in (0, 1)]
        self.weighted = p.sample_weight is not None
        w = p.weights
        self.cell_total = np.array([w[c].sum() if self.weighted else c.sum() for c in cells])
        self.cell_bits = pack_rows(np.array(cells, dtype=bool).reshape(len(cells), n), self.words)
        self.cell_rows = [np.flatnonzero(c) for c in cells]
        self.cell_weights = [w[r] for r in self.cell_rows] if self.weighted else None
        mine = [p.groups == g for g in range(p.n_groups)]
        self.group_bits = pack_rows(np.array(mine, dtype=bool).reshape(len(mine), n), self.words)
        self.group_rows = [np.flatnonzero(m) for m in mine]
        self.group_w = [w[r] for r in self.group_rows]
        self.weights = w

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
            every = unpack_rows(pred, self.n)
            positive = np.stack(
                [every[:, r] @ w for r, w in zip(self.cell_rows, self.cell_weights, strict=True)],
                axis=1,
            )
        else:
            positive = np.stack([popcount_rows(pred & c[None, :]) for c in self.cell_bits], axis=1)
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
