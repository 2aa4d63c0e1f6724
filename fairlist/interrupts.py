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

# Only modules the interpreter has loaded before any of fairlist runs, and threading: the
# package's __init__ imports this first, and a signal before exit_on_signals gets Python's
# default behaviour (a traceback and -2, or -15).
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

__all__ = ["InterruptSignals", "Terminated", "exit_on_signals", "started_as_command_line"]


#: Signals :func:`_exit_now` received after start-up (once a command has run and its handlers
#: are gone), in order: the command line's exit status reads them.
early_signals: list[int] = []

#: The one line a signal during start-up prints (stderr), the one an interrupted command prints
#: when it has no result yet (fairlist.cli.program.user_errors).
INTERRUPTED_LINE = "error: interrupted before any result"

#: True from :func:`exit_on_signals` until :func:`started` (the command line's handlers are in).
_starting = False


def _exit_now(signum: int, frame: FrameType | None) -> None:
    """A signal while the program starts, before there is anything to save: one line and the
    end, at once, with ``128 + signal``. ``os._exit``, not ``SystemExit``: an exception raised
    while a module imports can be swallowed or turned into another one by the importing code
    (a C extension reports "could not import module datetime"), and nothing needs unwinding
    yet: no file is open for writing, no worker started, nothing printed but this line.

    After start-up (the command has run, its own handlers are gone, the exit status is being
    decided) the signal is only recorded."""
    if not _starting:
        early_signals.append(int(signum))
        return
    try:  # os.write: no buffered stream touched from a handler
        os.write(2, (INTERRUPTED_LINE + "\n").encode())
    except OSError:
        pass
    os._exit(128 + int(signum))


def started() -> None:
    """Start-up is over (the command line has installed :class:`InterruptSignals`): from now
    on a signal reaching :func:`_exit_now` is recorded, not an exit."""
    global _starting
    _starting = False


_SCRIPT_NAMES = ("fairlist", "fairlist.exe", "fairlist-script.py", "fairlist-script.pyw")


def started_as_command_line(
    argv: list[str] | None = None, orig_argv: list[str] | None = None
) -> bool:
    """Whether this process is the ``fairlist`` program starting up: the console script
    (``argv[0]`` named ``fairlist``) or ``python -m fairlist`` (while Python locates the
    package's ``__main__``, ``argv[0]`` is ``"-m"``; the module named comes from the
    interpreter's own command line, ``sys.orig_argv``).

    >>> started_as_command_line(["/venv/bin/fairlist", "fit"], [])
    True
    >>> started_as_command_line(["-m"], ["python", "-X", "dev", "-m", "fairlist", "fit"])
    True
    >>> started_as_command_line(["-m"], ["python", "-m", "fairlist.study"])
    False
    >>> started_as_command_line(["/venv/bin/pytest"], [])
    False
    >>> started_as_command_line(["/home/me/fairlist.py"], [])  # a user's script of that name
    False
    """
    argv = sys.argv if argv is None else argv
    if not argv:
        return False
    if argv[0] != "-m":
        # the console script (a launcher .exe, or -script.py beside it on Windows), not a
        # user's own fairlist.py, whose Ctrl-C must keep running its finally blocks
        return os.path.basename(argv[0]) in _SCRIPT_NAMES
    return _module_run(getattr(sys, "orig_argv", []) if orig_argv is None else orig_argv) in (
        "fairlist",
        "fairlist.__main__",
    )


def _module_run(orig_argv: list[str]) -> str | None:
    """The module of ``python [options] -m MODULE``: the interpreter's options are single
    letters that can be grouped (``-um``); ``-X`` and ``-W`` take a value, ``-m`` the module."""
    args = iter(orig_argv[1:])
    for arg in args:
        if not arg.startswith("-") or arg.startswith("--") or arg == "-":
            return None  # a script or a long option: no -m before it
        for i, letter in enumerate(arg[1:], start=1):
            if letter in "XW":
                if i == len(arg) - 1:
                    next(args, None)
                break
            if letter == "c":
                return None
            if letter == "m":
                return arg[i + 1 :] or next(args, None)
    return None


def exit_on_signals() -> None:
    """Until :class:`InterruptSignals` takes over (and :func:`started` is called), SIGINT and
    SIGTERM end the program at once with exit status 130 or 143 and one line on stderr (no
    traceback): the command line's start-up, while it imports its modules and reads its
    arguments, has nothing to save. Like :class:`InterruptSignals`
    it leaves a signal the parent ignored ignored; an :class:`InterruptSignals` entered later
    replaces these handlers for its length and puts them back after."""
    global _starting
    if threading.current_thread() is not threading.main_thread():
        return
    _starting = True
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
