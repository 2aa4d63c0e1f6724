"""SIGTERM handled as Ctrl-C: a stop request that keeps the best result found so far.

Every long computation of fairlist reacts to Ctrl-C, Python's ``KeyboardInterrupt`` in the main
thread: the engines stop their search and return the best rule list with stop reason
``interrupted``, the Pareto sweeps return the points done, marked partial. SIGTERM, what a
scheduler, a container manager or ``timeout`` sends, kills a Python process at once by default,
and the result is lost. :class:`InterruptSignals` makes SIGTERM raise :class:`Terminated`, a
``KeyboardInterrupt``, so that it takes the same paths, and records which signals came, for the
exit status (``128 + signal``: 130 after SIGINT, 143 after SIGTERM, the shells' convention).

The command line installs it for the length of a command. The library installs no handler by
itself (signal handlers belong to the application); a program that wants the same behaviour
wraps its call::

    with InterruptSignals() as signals:
        clf.fit(X, y, sensitive_features=s)
    if signals.received:
        sys.exit(signals.exit_code)
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

__all__ = ["InterruptSignals", "Terminated", "exit_on_signals"]


#: Signals :func:`_exit_now` received, in order: its SystemExit can be lost in code that
#: clears Python errors while a module imports, and the command line's exit status reads this.
early_signals: list[int] = []


def _exit_now(signum: int, frame: FrameType | None) -> None:
    """A signal before there is anything to save: end quietly with ``128 + signal``."""
    early_signals.append(int(signum))
    raise SystemExit(128 + int(signum))


def exit_on_signals() -> None:
    """Until :class:`InterruptSignals` takes over, SIGINT and SIGTERM end the program quietly
    with exit status 130 or 143 (no traceback): the command line's start-up, while it imports
    its modules and reads its arguments, has nothing to save. Like :class:`InterruptSignals`
    it leaves a signal the parent ignored ignored; an :class:`InterruptSignals` entered later
    replaces these handlers for its length and puts them back after."""
    if threading.current_thread() is not threading.main_thread():
        return
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    for signum, default in defaults.items():
        if signal.getsignal(signum) is default:
            signal.signal(signum, _exit_now)


class Terminated(KeyboardInterrupt):
    """A stop request by a signal other than SIGINT (SIGTERM), raised in the main thread.

    A ``KeyboardInterrupt``, so that whatever handles Ctrl-C handles it the same way.
    """

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)


class InterruptSignals:
    """While entered, SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`.

    Each signal received is recorded (``received``, in order). Only a signal that still has its
    default disposition gets the handler (SIGINT: Python's ``default_int_handler``; SIGTERM:
    ``SIG_DFL``): one the parent process ignored (``nohup``, a shell's background job) stays
    ignored. The previous handlers come back on exit. Outside the main thread, where Python
    cannot set handlers, this does nothing.
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        self._previous: dict[int, Any] = {}
        self._depth = 0  # entered again while active (the command line's main and command)

    @property
    def exit_code(self) -> int:
        """``128 +`` the first signal received (130, SIGINT's, when none was recorded: a
        ``KeyboardInterrupt`` that came another way)."""
        return 128 + (self.received[0] if self.received else int(signal.SIGINT))

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(int(signum))
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    def __enter__(self) -> InterruptSignals:
        self._depth += 1
        if self._depth > 1:  # already active: the outermost entry owns the handlers
            return self
        self.received = []
        if threading.current_thread() is not threading.main_thread():
            return self
        defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
        for signum, default in defaults.items():
            previous = signal.getsignal(signum)
            if previous is default or previous is _exit_now:
                self._previous[signum] = previous
                signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._depth = max(0, self._depth - 1)
        if self._depth:
            return
        while self._previous:
            signum, previous = self._previous.popitem()
            signal.signal(signum, previous)
