"""Independent tasks run in parallel through joblib, reported as they complete.

:func:`run_tasks` is the one parallel runner: the Pareto sweeps and the reproduction study run
their fits through it. The data common to every task goes to the workers once (memory-mapped by
joblib's process backend, scattered to a Dask cluster); Ctrl-C, or a ``False`` from the
``on_result`` callback, stops the run and cancels what has not run. :class:`RunReport` says
what a run did (tasks, wall and busy time, parallel efficiency).
"""

from __future__ import annotations

import gc
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["RunReport", "run_tasks", "share_cores", "shutdown_workers", "worker_count"]


def worker_count(n_jobs: int | None, backend: str | None = None) -> int:
    """The workers ``run_tasks(n_jobs=..., backend=...)`` runs on this machine (joblib's
    effective ``n_jobs``; 1 for a Dask cluster, whose workers are other machines' processes)."""
    if backend == "dask":
        return 1
    from joblib import effective_n_jobs, parallel_config

    config = {"backend": backend} if backend is not None else {}
    with parallel_config(**config):
        return max(1, int(effective_n_jobs(n_jobs)))


def share_cores(n_tasks: int, workers: int, cores: int, slow: int = 0) -> list[int]:
    """Threads for each of ``n_tasks`` tasks started in order on ``workers`` workers that share
    ``cores`` cores, the first ``slow`` of them expected to be the slowest.

    The slow tasks start together, first, each on ``ceil(cores / min(slow, workers))`` threads:
    between them they can use every core from the start, and while the other workers run their
    one-thread tasks beside them the system shares the cores among all the threads. A slow task
    started last instead gets its threads only once the others are done, and then alone sets the
    wall time (measured in docs/performance.md, "Sweeps: tail threads").

    Task ``i`` after them gets ``cores // min(workers, n_tasks - i)`` (at least 1). The divisor
    is how many tasks can still run at once when task ``i`` starts: the workers, or, in the
    tail, the tasks left to start (``i`` included). So every task gets an equal share of the
    cores while the workers are all busy (``cores // workers``: one thread when there is a
    worker per core), and the last tasks, which start as the others finish, get the cores that
    those leave idle: the last one all of them. The counts depend on the order alone, never on
    the timing, so a run's thread counts are the same every time.

    Examples
    --------
    >>> share_cores(6, workers=4, cores=4)
    [1, 1, 1, 1, 2, 4]
    >>> share_cores(3, workers=2, cores=8)
    [4, 4, 8]
    >>> share_cores(8, workers=4, cores=4, slow=2)   # the first two: 2 threads each
    [2, 2, 1, 1, 1, 1, 2, 4]
    """
    workers, cores = max(1, workers), max(1, cores)
    slow = min(max(0, slow), n_tasks)
    first = -(-cores // min(slow, workers)) if slow else 1
    return [
        first if i < slow else max(1, cores // min(workers, n_tasks - i)) for i in range(n_tasks)
    ]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - macOS, Windows


def shutdown_workers() -> None:
    """Stop joblib's reusable process workers now, and remove their memory maps.

    Shutting the executor down through loky (``get_reusable_executor().shutdown()``) skips
    joblib's clean-up: the memory-map folders in /dev/shm stay registered with loky's resource
    tracker, which reports them as leaked at the exit of the program ("resource_tracker: There
    appear to be N leaked folder objects"). This goes through joblib's executor, which removes
    and unregisters them. A later run starts fresh workers.
    """
    from joblib.externals.loky import reusable_executor

    executor = reusable_executor._executor
    if executor is None:
        return
    terminate = getattr(executor, "terminate", None)  # joblib's MemmappingExecutor
    if terminate is not None:
        terminate(kill_workers=False)
    else:  # pragma: no cover - an executor that joblib did not create
        executor.shutdown(wait=True)


@dataclass(frozen=True)
class RunReport:
    """What a :func:`run_tasks` call did.

    Attributes
    ----------
    total, done : int
        Tasks given and tasks whose results came back.
    wall_seconds : float
        Elapsed time of the whole run (worker start-up and data shipping included).
    busy_seconds : float
        Sum of the tasks' own durations, measured inside the workers.
    workers : int
        Workers the backend ran (joblib's effective ``n_jobs``; a Dask cluster's threads).
    interrupted : bool
        True when Ctrl-C or a ``False`` from ``on_result`` stopped the run early.
    """

    total: int
    done: int
    wall_seconds: float
    busy_seconds: float
    workers: int
    interrupted: bool

    @property
    def efficiency(self) -> float:
        """Parallel efficiency: busy time / (workers × wall time), 1.0 for perfect scaling."""
        if self.done == 0 or self.wall_seconds <= 0 or self.workers <= 0:
            return math.nan
        return self.busy_seconds / (self.workers * self.wall_seconds)

    def summary(self) -> str:
        """One line: tasks, wall time, workers, parallel efficiency."""
        if self.done == 0:
            return f"0/{self.total} tasks run"
        return (
            f"{self.done}/{self.total} tasks in {self.wall_seconds:.1f} s on {self.workers} "
            f"worker(s), {self.busy_seconds:.1f} s busy: parallel efficiency "
            f"{100 * self.efficiency:.0f}%"
        )


def _timed(index: int, fn: Callable, args: tuple) -> tuple[int, Any, float]:
    """Run ``fn(*args)`` in a worker; return its index, its result and its duration."""
    start = time.perf_counter()
    out = fn(*args)
    return index, out, time.perf_counter() - start


def run_tasks(
    fn: Callable,
    tasks: Sequence[tuple],
    shared: Sequence[Any] = (),
    *,
    n_jobs: int | None = None,
    backend: str | None = None,
    on_result: Callable[[int, Any, float], bool | None] | None = None,
    max_nbytes: str | int | None = "64K",
) -> RunReport:
    """Run ``fn(*shared, *task)`` for every task through joblib; report completions as they come.

    Parameters
    ----------
    fn : callable
        A module-level function (picklable).
    tasks : sequence of tuples
        The small per-task arguments, in the order they should start (put the longest first:
        the last tasks to start then are short, and no worker idles at the end).
    shared : sequence
        Arguments common to every task (the data). Each goes to the workers once: joblib's
        process backend memory-maps the numpy arrays in them (those above ``max_nbytes``) and
        hands every task a reference; ``backend="dask"`` scatters them to every worker of the
        cluster (the active ``dask.distributed.Client``) before the first task.
    n_jobs, backend
        As :class:`joblib.Parallel` (None: joblib's defaults, or an enclosing
        ``joblib.parallel_config``).
    on_result : callable(index, result, seconds), optional
        Called in the calling process as each task completes; return False to stop the run.
    max_nbytes : str, int or None
        Memory-map arrays larger than this (joblib's parameter; None: never).

    Returns
    -------
    RunReport
        ``interrupted`` is True when Ctrl-C (``KeyboardInterrupt``) or ``on_result`` stopped
        the run; results delivered before that were all passed to ``on_result``, the tasks
        still running are cancelled (joblib kills the process workers running them).
    """
    from joblib import Parallel, delayed, effective_n_jobs, parallel_config

    shared = list(shared)
    config: dict[str, Any] = {"n_jobs": n_jobs, "max_nbytes": max_nbytes}
    if backend is not None:
        config["backend"] = backend
    if backend == "dask" and shared:
        config["scatter"] = shared
    start = time.perf_counter()
    done, busy, interrupted = 0, 0.0, False
    workers = 1
    if tasks:
        with parallel_config(**config):
            workers = max(1, int(effective_n_jobs(n_jobs)))
            runner = Parallel(return_as="generator_unordered")
            outputs = None
            try:  # an interrupt while the workers start aborts them too
                outputs = runner(
                    delayed(_timed)(i, fn, (*shared, *task)) for i, task in enumerate(tasks)
                )
                for index, out, seconds in outputs:
                    done += 1
                    busy += seconds
                    if on_result is not None and on_result(index, out, seconds) is False:
                        interrupted = True
                        break
            except KeyboardInterrupt:
                interrupted = True
            finally:
                # Cancels what has not run: joblib aborts the remaining tasks, and after an
                # interrupt or an error kills the process workers and removes their memory maps
                # (/dev/shm); after a normal end loky keeps its workers for the next call (they
                # end with the process).
                if outputs is not None:
                    with warnings.catch_warnings():  # the cancelling is meant: no warning
                        warnings.filterwarnings(  # (results not used, tasks cancelled)
                            "ignore", r"[0-9]+ tasks (have been successfully|which were still)"
                        )
                        outputs.close()
                    if interrupted:
                        # The killed executor's queues hold loky's named semaphores (/dev/shm),
                        # unlinked when those objects are collected; they sit in reference
                        # cycles, so without a collection they stay until the process exits.
                        gc.collect()
    return RunReport(len(tasks), done, time.perf_counter() - start, busy, workers, interrupted)
