""":func:`run_study`: load the data, run the missing fits in parallel (joblib or a Dask cluster),
store each as it completes, report progress, and gather the tables.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from .._params import InstanceOf, Interval, Satisfies, validate_params
from ..errors import FairlistError, InvalidParameterError
from ..parallel import RunReport, run_tasks
from ..solvers import Problem
from ..sweep import INTERRUPTED, SweepData, fold_assignment
from .grid import INTEGRAL, REAL, StudyGrid
from .records import ResultsFolder
from .tables import study_tables, write_tables
from .tasks import run_task, study_tasks


class SchedulerError(FairlistError, ConnectionError):
    """No Dask scheduler answers at the address given."""


DataLike = tuple[Any, Any, Any]  # (X of antecedents, y, protected mask)


def load_data(
    grid: StudyGrid, data: Mapping[str, DataLike] | None, data_home: str | os.PathLike | None
) -> dict[str, SweepData]:
    """Every data set of the grid as :class:`SweepData` with its folds."""
    from ..datasets import DATASETS, load_dataset

    given = dict(data or {})
    unknown = [d for d in grid.datasets if d not in given and d not in DATASETS]
    if unknown:
        raise InvalidParameterError(
            f"unknown data set {unknown[0]!r}: use one of {sorted(set(DATASETS) | set(given))}"
        )
    bundle = {}
    for name in grid.datasets:
        if name in given:
            X, y, protected = given[name]
            labels = None
        else:
            ds = load_dataset(name, data_home=data_home)
            X, y, protected, labels = ds.X, ds.y, ds.protected_mask, ds.labels
        problem = Problem.from_data(X, y, protected, labels=labels)
        fold = fold_assignment(problem.y, problem.protected, grid.cv, grid.seed)
        bundle[name] = SweepData(
            problem.X, problem.y, problem.protected, fold, problem.feature_names, problem.labels
        )
    return bundle


# --------------------------------------------------------------------------- progress
class _Progress:
    """Prints fits done / total, elapsed time and the time left, at most every ``interval`` s.

    The time left is the elapsed time scaled by the estimated cost of the fits left over the
    cost of the fits done (the longest start first, so a count of fits would mislead).
    """

    def __init__(
        self, total: int, stored: int, cost: float, stream: TextIO | None, interval: float
    ) -> None:
        self.total, self.stored, self.stream, self.interval = total, stored, stream, interval
        self.cost_left = cost
        self.cost_done = 0.0
        self.start = time.perf_counter()
        self.last = -math.inf
        self.computed = 0

    def line(self) -> str:
        done = self.stored + self.computed
        elapsed = time.perf_counter() - self.start
        eta = elapsed * self.cost_left / self.cost_done if self.cost_done > 0 else math.nan
        when = "?" if math.isnan(eta) else _clock(eta)
        before = f" ({self.stored} stored before)" if self.stored else ""
        return (
            f"study: {done}/{self.total} fits{before}, {_clock(elapsed)} elapsed, about {when} left"
        )

    def update(self, cost: float = 0.0, force: bool = False) -> None:
        if not force:
            self.computed += 1
            self.cost_done += cost
            self.cost_left = max(0.0, self.cost_left - cost)
        now = time.perf_counter()
        if self.stream is not None and (force or now - self.last >= self.interval):
            self.last = now
            print(self.line(), file=self.stream, flush=True)


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# --------------------------------------------------------------------------- running
@dataclass
class StudyOutcome:
    """What :func:`run_study` did.

    Attributes
    ----------
    total, stored, computed : int
        Fits in the grid, fits found in the folder, fits computed by this run.
    complete : bool
        Every fit is done: the tables were written.
    report : RunReport
        The parallel run (wall time, busy time, workers, efficiency).
    tables : dict of DataFrame
        The tables written (empty when incomplete).
    files : list of Path
    data : dict of SweepData
        The data sets fitted, with their folds (for :func:`study_figures`).
    """

    total: int
    stored: int
    computed: int
    complete: bool
    report: RunReport
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    data: dict[str, SweepData] = field(default_factory=dict, repr=False)


def _connect(address: str, timeout: float):
    """A Dask client of the scheduler at ``address``; a clear error within ``timeout`` s."""
    try:
        from dask.distributed import Client
    except ImportError:  # pragma: no cover - the study extra installs it
        raise InvalidParameterError(
            "a scheduler address needs dask.distributed: pip install 'fairlist[study]'"
        ) from None
    _probe(address, timeout)
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError, MemoryError) as exc:
        raise SchedulerError(
            f"no Dask scheduler answers at {address!r} within {timeout:g} s ({exc})"
        ) from None


#: The most frames a Dask message starts with (its first 8 bytes count them): a larger count is
#: not Dask speaking (``HTTP/1.1`` read as a count is 3 EiB).
_MAX_FRAMES = 1 << 20


def _probe(address: str, timeout: float) -> None:
    """Check, within ``timeout`` s, that a TCP address speaks Dask before a client connects.

    ``Client(timeout=...)`` bounds the connection, not the handshake that follows: a port that
    accepts and stays silent hangs it, and an HTTP port (the dashboard's) answers its handshake
    with ``HTTP/1.1 400``, whose first 8 bytes read as a frame count of 3 EiB (a MemoryError).
    A Dask scheduler sends its handshake as soon as it accepts: a small frame count. Addresses
    of other transports (``tls://``, ``inproc://``, ``ucx://``) are left to Dask."""
    import socket
    import struct

    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return
    host, sep, port = rest.rpartition(":")
    if not sep or not port.isdigit():
        return  # Dask names the malformed address itself
    host = host.strip("[]") or "127.0.0.1"
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, int(port)), timeout=timeout)
    except OSError as exc:  # refused, unreachable, or no connection within the timeout
        raise SchedulerError(
            f"no Dask scheduler answers at {address!r} within {timeout:g} s ({exc})"
        ) from None
    try:
        with sock:
            head = b""
            while len(head) < 8:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left)
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    break
                head += chunk
    except TimeoutError:
        raise SchedulerError(
            f"{address!r} accepts connections but sent no Dask handshake within {timeout:g} s: "
            "not a Dask scheduler (a scheduler listens on port 8786 by default; 8787 is its "
            "dashboard, HTTP)"
        ) from None
    except OSError as exc:
        raise SchedulerError(
            f"no Dask scheduler answers at {address!r} within {timeout:g} s ({exc})"
        ) from None
    if len(head) < 8 or struct.unpack("<Q", head)[0] > _MAX_FRAMES:
        what = "an HTTP server" if head.startswith(b"HTTP") else "another service"
        raise SchedulerError(
            f"{address!r} is not a Dask scheduler: {what} answers there (first bytes "
            f"{head[:8]!r}); a scheduler listens on port 8786 by default"
        )


def run_study(
    grid: StudyGrid,
    out: str | os.PathLike[str],
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    connect_timeout: float = 10.0,
    backend: str | None = None,
    data: Mapping[str, DataLike] | None = None,
    data_home: str | os.PathLike[str] | None = None,
    max_fits: int | None = None,
    progress: TextIO | None = sys.stderr,
    progress_interval: float = 10.0,
) -> StudyOutcome:
    """Run every fit of ``grid`` not yet stored in ``out``; write the tables when all are done.

    Parameters
    ----------
    grid : StudyGrid
    out : path
        The results folder: new, empty, or one a study of this version wrote (created;
        ``records/`` holds one JSON record per finished fit, the tables are written beside it).
    n_jobs : int, optional
        Local worker processes (joblib; None: one, -1: one per core). Ignored with a
        scheduler: the fits then use every worker thread of the cluster.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``): the fits run on its cluster, through
        the same code path (joblib's Dask backend), the data scattered once to every worker.
    connect_timeout : float
        Seconds to wait for the scheduler before :class:`SchedulerError`.
    backend : str, optional
        Another joblib backend for local runs (``"threading"`` in tests).
    data : mapping of name to (X, y, protected), optional
        Data sets of your own, by name (X: binary antecedents; protected: a boolean mask).
    data_home : path, optional
        Where the built-in data sets' files are (:func:`fairlist.datasets.data_home`).
    max_fits : int, optional
        Stop after computing this many fits (the rest on a later run).
    progress : text stream or None
        Where progress lines go (default standard error).
    progress_interval : float
        Seconds between two progress lines.

    Returns
    -------
    StudyOutcome

    Raises
    ------
    InvalidParameterError
        An unknown data set, a bad parameter.
    ResultsFolderError
        ``out`` was written by another version, is not a study's folder (a file, or a folder
        that is not empty and holds no ``study.json``), or holds a record whose content does
        not match its checksum.
    SchedulerError
        No scheduler answers at ``scheduler``.
    """
    if not isinstance(grid, StudyGrid):
        raise InvalidParameterError(f"grid must be a StudyGrid, got {type(grid).__name__}")
    validate_params(
        "run_study",
        _RUN_CONSTRAINTS,
        {
            "n_jobs": n_jobs,
            "connect_timeout": connect_timeout,
            "max_fits": max_fits,
            "scheduler": scheduler,
        },
    )
    folder = ResultsFolder(out)
    bundle = load_data(grid, data, data_home)
    folder.open()
    tasks = study_tasks(grid, bundle)
    results: dict[int, dict[str, Any]] = {}
    for i, task in enumerate(tasks):
        found = folder.load(task.key)
        if found is not None:
            results[i] = found
    todo = sorted((i for i in range(len(tasks)) if i not in results), key=lambda i: -tasks[i].cost)
    meter = _Progress(
        len(tasks), len(results), sum(tasks[i].cost for i in todo), progress, progress_interval
    )
    meter.update(force=True)

    def on_result(j: int, result: dict[str, Any], seconds: float) -> bool:
        if result.get("status") == INTERRUPTED:
            return False  # cut short by Ctrl-C in a worker: never stored
        i = todo[j]
        folder.save(tasks[i].key, result, seconds)
        results[i] = result
        meter.update(tasks[i].cost)
        return max_fits is None or meter.computed < max_fits

    client = _connect(scheduler, connect_timeout) if scheduler else None
    try:
        report = run_tasks(
            run_task,
            [tasks[i].args for i in todo],
            (bundle,),
            n_jobs=-1 if client is not None else n_jobs,  # a cluster: all its worker threads
            backend="dask" if client is not None else backend,
            on_result=on_result,
        )
    finally:
        if client is not None:
            client.close()
    meter.update(force=True)
    outcome = StudyOutcome(
        len(tasks), meter.stored, meter.computed, len(results) == len(tasks), report, data=bundle
    )
    if outcome.complete:
        outcome.tables = study_tables(grid, tasks, [results[i] for i in range(len(tasks))], bundle)
        outcome.files = write_tables(outcome.tables, folder.path)
    return outcome


_RUN_CONSTRAINTS: dict[str, list] = {
    "n_jobs": [
        None,
        Satisfies(
            lambda v: isinstance(v, INTEGRAL) and not isinstance(v, bool) and v != 0,
            "a nonzero integer (-1: one worker per core)",
        ),
    ],
    "connect_timeout": [Interval(REAL, 0, None, closed="neither")],
    "max_fits": [None, Interval(INTEGRAL, 1, None, closed="left")],
    "scheduler": [None, InstanceOf(str, "a scheduler address (str)")],
}
