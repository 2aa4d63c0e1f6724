"""Python, numpy and fairlist values as JSON values: one converter for every JSON writer."""

from __future__ import annotations

import enum
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["jsonable", "dumps", "read_json", "invalid_json", "write_text"]


def jsonable(value: Any) -> Any:
    """A JSON-ready copy of ``value``, containers converted recursively.

    numpy scalars become Python ones and arrays lists; a non-finite float becomes ``None`` (JSON
    has no NaN or infinity); an ``IntEnum`` (``Metric``) becomes its lower-case name and another
    enum its value; tuples become lists; anything else JSON cannot hold becomes its ``str``.
    """
    if isinstance(value, dict):
        return {k if isinstance(k, (str, int)) else str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, enum.IntEnum):
        return value.name.lower()
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


def dumps(doc: Any, **kwargs: Any) -> str:
    """``json.dumps`` of :func:`jsonable` ``(doc)`` (indent 2 unless told otherwise)."""
    kwargs.setdefault("indent", 2)
    return json.dumps(jsonable(doc), **kwargs)


def read_json(path: str | Path, what: str = "file", error: type | None = None) -> Any:
    """The JSON document in ``path``; a missing file or invalid JSON is an error naming it.

    Invalid JSON raises ``error`` (default :class:`~fairlist.errors.DataError`) as one line,
    ``PATH is not valid JSON (line L, column C): reason``.
    """
    from .errors import DataError

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no {what} at {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise (error or DataError)(invalid_json(path, exc)) from None
    except RecursionError:
        raise (error or DataError)(f"{path} is not valid JSON here: nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise (error or DataError)(
            f"{path} is not valid JSON: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None


def invalid_json(name: Any, exc: json.JSONDecodeError) -> str:
    """The one-line message for a JSON text that does not parse: where, and why."""
    return f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"


_UMASK = os.umask(0)  # read once, at import (reading it means setting it)
os.umask(_UMASK)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically: into a temporary file beside it, then
    renamed over it, so that a process stopped mid-write (a second Ctrl-C, SIGTERM, a full
    disk) leaves the old file or the new one, never half of one."""
    path = Path(path)
    if path.is_dir():  # else the error would name the temporary file
        raise IsADirectoryError(f"{path} is a folder; give a file name in it")
    if not (path.parent or Path(".")).is_dir():
        raise FileNotFoundError(f"{path}: the folder {path.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # as open() would create it (mkstemp makes it 0600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
