"""What a solve runs under, for both engines: the deadline and the memory watch, and the
interruptible run (the search in a helper thread, so that Ctrl-C reaches the caller and stops
the search with its best list kept).

CP-SAT does not honour its ``max_memory_in_mb``, so the CP-SAT engine watches the process's
growth itself (:class:`MemoryWatch`); the model build checks a :class:`Deadline` between its
sections.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar


# ---------------------------------------------------------------------------- time limit
class ModelBuildTimeout(Exception):
    """Building the model passed the solve's deadline or memory limit (``limit``: "time" or
    "memory"; raised by :meth:`Deadline.check`)."""

    def __init__(self, section: str, limit: str = "time") -> None:
        super().__init__(section)
        self.section, self.limit = section, limit


def resident_mb() -> float:
    """This process's resident memory in MiB (Linux's /proc/self/statm; elsewhere the peak
    that getrusage reports, or 0 where neither is available)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


class MemoryWatch:
    """Whether the process has grown by more than ``limit_mb`` MiB since the watch began.

    CP-SAT does not honour its ``max_memory_in_mb`` (its documentation: only the pure SAT
    solver does), so the engine watches the memory itself: the model build checks it with
    the deadline, and the search is stopped (``stop_search``) once it is exceeded.
    """

    def __init__(self, limit_mb: float) -> None:
        self.limit_mb = float(limit_mb)
        self.base_mb = resident_mb()
        self.exceeded = False

    def __call__(self) -> bool:
        if not self.exceeded and resident_mb() - self.base_mb > self.limit_mb:
            self.exceeded = True
        return self.exceeded


@dataclass(frozen=True)
class Deadline:
    """When the solve's time limit runs out (``time.perf_counter()`` seconds; None: never),
    and the memory it may take (None: no watch).

    :func:`build_model` checks it between its sections and every :data:`CHECK_EVERY` patterns
    inside its loops over patterns, so that building a model that does not fit in the time
    limit stops within a fraction of a second of the limit.
    """

    at: float | None = None
    memory: MemoryWatch | None = None

    CHECK_EVERY: ClassVar[int] = 512

    def remaining(self) -> float:
        return math.inf if self.at is None else self.at - time.perf_counter()

    def check(self, section: str, p: int = 0) -> None:
        """Raise :class:`ModelBuildTimeout` naming ``section`` once the deadline has passed
        or the memory limit is exceeded (inside a loop: only when ``p`` is a multiple of
        CHECK_EVERY, a cheap test)."""
        if p % self.CHECK_EVERY:
            return
        if self.at is not None and time.perf_counter() > self.at:
            raise ModelBuildTimeout(section, "time")
        if self.memory is not None and self.memory():
            raise ModelBuildTimeout(section, "memory")


NO_DEADLINE = Deadline()


def run_interruptibly(
    work: Callable[[], Any],
    stop: Callable[[], None],
    *,
    tick: Callable[[], None] | None = None,
    interval: float = 0.1,
    name: str = "fairlist-solve",
) -> tuple[Any, bool]:
    """``work()``'s value, run in a helper thread, and whether Ctrl-C stopped it.

    The calling thread waits on an Event (not ``Thread.join``: a join interrupted by Ctrl-C can
    return at once afterwards, before the thread has finished, on CPython < 3.13), waking every
    ``interval`` seconds to call ``tick`` (a time limit, a memory watch or a progress report,
    which may call ``stop``). A ``KeyboardInterrupt`` calls ``stop`` — the search then returns
    its best so far — again at every wake until ``work`` returns, since a stop that comes
    before the search has started can be lost; a second Ctrl-C ends the search all the same.
    An exception of ``work`` is raised here. Both engines run their search through it.
    """
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    interrupted = False
    try:
        while not done.is_set():
            try:
                done.wait(interval)  # with a timeout: not every platform interrupts the wait
                if tick is not None and not interrupted and not done.is_set():
                    tick()  # a KeyboardInterrupt raised here (a progress callback) counts too
            except KeyboardInterrupt:
                interrupted = True
            if interrupted and not done.is_set():
                stop()
    finally:
        while not done.is_set():  # a second Ctrl-C left the loop: end the search all the same
            stop()
            done.wait(0.1)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"], interrupted
