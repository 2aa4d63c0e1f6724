"""Python, numpy and fairlist values as JSON values: one converter for every JSON writer."""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

__all__ = ["jsonable", "dumps"]


def jsonable(value: Any) -> Any:
    """A JSON-ready version of ``value`` (use as ``json.dumps(..., default=jsonable)`` and on
    scalars before writing them).

    numpy scalars become Python ones and arrays lists; a non-finite float becomes ``None`` (JSON
    has no NaN or infinity); an enum becomes its value (a ``Metric`` its lower-case name);
    anything else is returned as is when JSON can hold it, else as its ``str``.
    """
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
    if value is None or isinstance(value, (bool, int, str, list, dict)):
        return value
    if isinstance(value, tuple):
        return list(value)
    return str(value)


def dumps(doc: Any, **kwargs: Any) -> str:
    """``json.dumps`` with :func:`jsonable` for what JSON cannot hold (indent 2 by default)."""
    import json

    kwargs.setdefault("indent", 2)
    return json.dumps(_clean(doc), default=jsonable, **kwargs)


def _clean(doc: Any) -> Any:
    """Replace non-finite floats inside containers (``default`` never sees plain floats)."""
    if isinstance(doc, dict):
        return {k: _clean(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [_clean(v) for v in doc]
    if isinstance(doc, float) and not math.isfinite(doc):
        return None
    return doc
