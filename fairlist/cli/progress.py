"""The progress displays of the commands, on standard error and never on a pipe's standard
output: ``fit``'s live line (:func:`progress_printer`: the phase running, then the search's
nodes, best objective, bound and gap; a kept line for each phase that ended), the library's
warnings as one line each, above that live line when it is up (:func:`show_warning`), and
``pareto``'s progress (:func:`progress_bar`: a rich bar on a terminal, a line every
:data:`PIPE_PROGRESS_SECONDS` on a pipe).
"""

from __future__ import annotations

import math
import sys
from contextlib import contextmanager
from typing import Any

import typer


@contextmanager
def progress_printer(enabled: bool, source: str = ""):
    """A progress callback for ``fit`` (None when not ``enabled`` or not on a terminal: nothing
    on a pipe) that shows the phase running on one live line (reading, binarizing, building the
    search, searching with its nodes, best objective, bound and gap) and keeps a line for each
    phase that ended; warnings print above the live line (see :func:`show_warning`)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console

    line = _StatusLine(Console(stderr=True), source)
    with line:
        yield line


class _StatusLine:
    """The live line of :func:`progress_printer`: a callable taking fit's phase dicts
    (``{"phase": ...}``, see ``FairRuleListClassifier._report_phase``) and the engine's search
    dicts (no ``"phase"``: searching)."""

    def __init__(self, console: Any, source: str) -> None:
        from rich.status import Status as RichStatus

        self.console, self.source = console, source
        self.phase, self.info = "reading", {"phase": "reading", "source": source}
        self.since = _clock()
        self.status = RichStatus(_progress_line(self.info), console=console)

    def __enter__(self) -> _StatusLine:
        global _LIVE_LINE
        self.status.start()
        _LIVE_LINE = self
        return self

    def __exit__(self, *exc: Any) -> None:
        global _LIVE_LINE
        _LIVE_LINE = None
        self.status.stop()

    def __call__(self, info: dict[str, Any]) -> None:
        phase = info.get("phase", "searching")
        if phase == "preparing":  # checking the table read: part of reading, on the line
            self.info = {**self.info, **{k: v for k, v in info.items() if k != "phase"}}
        elif phase != self.phase:
            done = _phase_done(self.phase, self.info, info, _clock() - self.since)
            if done:
                self.console.print(done, highlight=False)
            self.phase, self.since = phase, _clock()
            self.info = info
        else:
            self.info = info
        self.status.update(_progress_line(self.info if phase == "preparing" else info))

    def warn(self, text: str) -> None:
        """A warning on its own line, above the live line."""
        from rich.text import Text

        self.console.print(Text(text, style="yellow"))  # (a Text: the style stays on it)


#: The live line of a running ``fit`` (None when there is none): warnings print above it.
_LIVE_LINE: _StatusLine | None = None


def _clock() -> float:
    import time

    return time.monotonic()


def _phase_done(phase: str, info: dict[str, Any], following: dict[str, Any], seconds: float):
    """The kept line of a phase that ended (``following``: the next phase's dict), or None."""
    took = f"({seconds:.1f} s)"
    if phase == "reading":
        return f"read {info.get('source') or 'the data'} {took}"
    if phase == "binarizing":
        made = following.get("antecedents")
        into = f" into {made:,} antecedents" if isinstance(made, int) else ""
        return (
            f"binarized {info.get('rows', 0):,} rows x {info.get('columns', 0):,} columns"
            f"{into} {took}"
        )
    if phase == "building":
        return (
            f"built the search: {info.get('rows', 0):,} rows, "
            f"{info.get('antecedents', 0):,} antecedents {took}"
        )
    if phase == "warm_start":
        from ..progress import warm_start_text

        return warm_start_text(info)
    return None


def _progress_line(info: dict[str, Any]) -> str:
    """The live line: the phase that runs, or a search's progress (the keys an engine's
    progress dict may hold)."""
    phase = info.get("phase", "searching")
    if phase in ("reading", "preparing"):
        return f"reading {info.get('source') or 'the data'}…"
    if phase == "binarizing":
        return f"binarizing {info.get('rows', 0):,} rows x {info.get('columns', 0):,} columns…"
    if phase == "building":
        return (
            f"building the search: {info.get('rows', 0):,} rows, "
            f"{info.get('antecedents', 0):,} antecedents…"
        )
    if phase == "warm_start":
        from ..progress import warm_start_text

        return f"{warm_start_text(info)}…"
    parts = [f"searching… {info.get('seconds', 0.0):.1f} s"]
    if "nodes_expanded" in info:
        parts.append(f"{info['nodes_expanded']:,} nodes, trie {info.get('trie_size', 0):,}")
    best, lower = info.get("best_objective"), info.get("lower_bound")
    if isinstance(best, float) and math.isfinite(best):
        parts.append(f"best {best:.6f}")
        if isinstance(lower, float) and math.isfinite(lower):
            parts.append(f"bound {lower:.6f}, gap {max(0.0, best - lower):.6f}")
    else:
        parts.append("no fair list yet")
    if info.get("certified_length"):
        parts.append(f"none better up to {info['certified_length']} rules")
    return ", ".join(parts)


def show_warning(message: Any, category: type, *args: Any, **kwargs: Any) -> None:
    """A library warning as one line on stderr (``warning: ...``), not a source location;
    above ``fit``'s live progress line when one is up, never onto it."""
    if _LIVE_LINE is not None:
        _LIVE_LINE.warn(f"warning: {message}")
        return
    typer.secho(f"warning: {message}", err=True, fg=typer.colors.YELLOW)


#: Seconds between two progress lines on a pipe.
PIPE_PROGRESS_SECONDS = 5.0


class _PipeProgress:
    """Progress as plain lines on stderr when it is not a terminal (a log, a pipe): one line
    every :data:`PIPE_PROGRESS_SECONDS`, with the fits done, the total and the best so far."""

    def __init__(self) -> None:
        import time

        self._clock = time.monotonic
        self.start = self._clock()
        self.last = self.start
        self.best: tuple[float, float] | None = None  # (error, unfairness)

    def note(self, row: dict[str, Any]) -> None:
        error = row.get("test_error", row.get("error"))
        unfair = row.get("test_unfairness", row.get("unfairness"))
        if isinstance(error, float) and math.isfinite(error):
            if self.best is None or error < self.best[0]:
                self.best = (error, float(unfair))

    def report(self, done: int, total: int | None, force: bool = False) -> None:
        now = self._clock()
        if not force and now - self.last < PIPE_PROGRESS_SECONDS and done != total:
            return
        self.last = now
        text = f"pareto: {done}/{total} fits" if total else f"pareto: {done} solves"
        text += f", {now - self.start:.0f} s"
        if self.best is not None:
            text += f", best error {self.best[0]:.4f} (unfairness {self.best[1]:.4f})"
        typer.echo(text, err=True)


@contextmanager
def progress_bar(enabled: bool):
    """Progress callbacks ``(report(done, total), note(row))`` (total None: unknown): a rich bar
    on a terminal, a line every few seconds on a pipe, nothing when not ``enabled``."""
    if not enabled:
        yield (lambda done, total: None), (lambda row: None)
        return
    if not sys.stderr.isatty():
        pipe = _PipeProgress()
        yield pipe.report, pipe.note
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("fits", total=None)

        def report(done: int, total: int | None) -> None:
            bar.update(task, completed=done, total=total)

        yield report, (lambda row: None)
