"""Signals: SIGTERM (a scheduler's, a container's, ``timeout``'s stop) is handled as Ctrl-C.

Each test runs the real program in a subprocess of its own session, waits until it is at work,
sends one signal and checks: the exit status (130 after SIGINT, 143 after SIGTERM), what was
written, and that nothing of it is left running or in /dev/shm.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

#: Start the command line as a terminal would: SIGINT raises KeyboardInterrupt even when the
#: test runner was started with it ignored (a shell's background job), as a child inherits that.
LAUNCH = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'fairlist'; from fairlist.cli import main; main()"
)
#: Generous: the test machine may be loaded (start-up alone takes seconds there).
START_TIMEOUT = 120.0
STOP_TIMEOUT = 20.0


class Program:
    """``fairlist ARGS`` in a new session, its stderr on a pseudo-terminal (so that it shows its
    progress, which tells when it is at work), its output collected as it comes."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        master, slave = pty.openpty()
        self.output = b""
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, *args], cwd=cwd, stdin=subprocess.DEVNULL,
            stdout=slave, stderr=slave, start_new_session=True,
            env={**os.environ, "COLUMNS": "200", **(env or {})},
        )  # fmt: skip
        os.close(slave)
        self._reader = threading.Thread(target=self._read, args=(master,), daemon=True)
        self._reader.start()

    def _read(self, fd: int) -> None:
        try:
            while chunk := os.read(fd, 4096):
                self.output += chunk
        except OSError:  # the terminal closes when the program has exited
            pass
        finally:
            os.close(fd)

    def wait_for(self, ready, timeout: float = START_TIMEOUT) -> None:
        """Wait until ``ready()`` is true (fails if the program exits first)."""
        deadline = time.monotonic() + timeout
        while not ready():
            assert self.proc.poll() is None, f"exited {self.proc.returncode}: {self.text}"
            assert time.monotonic() < deadline, f"not ready after {timeout} s: {self.text}"
            time.sleep(0.05)

    def stop(self, signum: int) -> int:
        """Send ``signum``; the exit status (waits at most STOP_TIMEOUT seconds)."""
        self.proc.send_signal(signum)
        try:
            return self.proc.wait(STOP_TIMEOUT)
        finally:
            self.kill()
            self._reader.join(5)

    def kill(self) -> None:
        """Whatever of the session is left: killed (a failed test leaves nothing behind)."""
        for pid in session_processes(self.proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")


def session_processes(sid: int) -> list[int]:
    """The live (not zombie) processes of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def data_home(shared_data) -> dict[str, str]:
    return {"FAIRLIST_DATA_HOME": str(shared_data)}


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"]
)
def test_a_signal_stops_fit_and_the_best_list_is_written(tmp_path, data_home, signum, code):
    from fairlist.estimator import FairRuleListClassifier

    model = tmp_path / "m.json"
    fit = Program(
        ["fit", "compas", "--epsilon", "0.01", "--lam", "0.0001", "--max-nodes", "0",
         "--time-limit", "0", "--output", str(model)],
        tmp_path, data_home,
    )  # fmt: skip
    fit.wait_for(lambda: b"nodes" in fit.output)  # the search is under way
    assert fit.stop(signum) == code, fit.text
    assert "interrupted: this is the best list found so far" in fit.text
    doc = json.loads(model.read_text())
    assert doc["training"]["stop_reason"] == "interrupted"
    clf = FairRuleListClassifier.load(model)
    assert str(clf.status_) == "feasible" and clf.unfairness_ <= 0.01 + 1e-9
