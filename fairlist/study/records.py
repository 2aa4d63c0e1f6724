"""The results folder: one checksummed JSON record per finished fit, named by a hash of its
parameters, in a folder the study claims as its own (:class:`ResultsFolder`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .._json import write_text
from .._version import __version__
from ..errors import FairlistError
from ..sweep import SweepData

FORMAT = "fairlist.study"
#: Version of the results folder's layout and records; a folder of another version is refused.
FORMAT_VERSION = 2  # 2: each record carries the checksum of its content


class ResultsFolderError(FairlistError, ValueError):
    """The results folder cannot be used: written by another fairlist or study-format version,
    not a study's folder (a file, or a folder holding other things), or a record in it whose
    content does not match its checksum."""


# --------------------------------------------------------------------------- results folder
def _digest(key: Mapping[str, Any]) -> str:
    """A record's name: a hash of its key's canonical JSON."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


class ResultsFolder:
    """A study's folder: ``study.json`` (the versions that wrote it) and one record per fit.

    The study claims a folder that is new or empty, or that holds its marker, ``study.json`` of
    this format and version; any other folder (or a file) is refused, never written into.
    Records live in ``records/<kind>/<hash>.json``; each holds its key, its result, how long
    the fit took and ``sha256``, the checksum of those three fields' canonical JSON. They are
    written atomically (a temporary file renamed), so an interrupted write leaves no half
    record; a record that does not read back whole (not JSON, another key, a checksum that
    does not match) is refused (:class:`ResultsFolderError`, naming the file: delete it and
    the fit is computed again).
    """

    MANIFEST = "study.json"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def manifest(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "fairlist": __version__}

    def open(self) -> None:
        """Create the folder, or check that this version of the study wrote it."""
        file = self.path / self.MANIFEST
        if self.path.exists() and not self.path.is_dir():
            raise ResultsFolderError(
                f"the results folder {self.path} is a file, not a folder: give a new or empty "
                "folder, or one a study wrote"
            )
        if file.exists():
            try:
                found = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ResultsFolderError(f"{file} is not a study manifest ({exc})") from None
            if not isinstance(found, dict):
                raise ResultsFolderError(
                    f"{file} is not a study manifest (a JSON {type(found).__name__}, expected an "
                    f"object with format {FORMAT!r}): {self.path} is not a study's folder; give "
                    "a new or empty folder"
                )
            if any(found.get(k) != v for k, v in self.manifest().items()):
                raise ResultsFolderError(
                    f"{self.path} holds results of another version (format "
                    f"{found.get('format')!r} {found.get('format_version')!r}, fairlist "
                    f"{found.get('fairlist')!r}); this is fairlist {__version__}, study format "
                    f"{FORMAT_VERSION}. Results of different versions are not mixed: give "
                    f"another folder, or delete this one to start afresh."
                )
            return
        if self.path.exists():
            entries = sorted(e.name for e in self.path.iterdir())
            if entries:
                shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
                raise ResultsFolderError(
                    f"the results folder {self.path} is not empty and holds no {self.MANIFEST} "
                    f"(found {len(entries)} entries: {shown}): it is not a study's folder and "
                    "nothing in it is overwritten; give a new or empty folder"
                )
        self.path.mkdir(parents=True, exist_ok=True)
        _write_atomic(file, json.dumps(self.manifest(), indent=2) + "\n")

    def _file(self, key: Mapping[str, Any]) -> Path:
        return self.path / "records" / str(key["kind"]) / f"{_digest(key)}.json"

    def load(self, key: Mapping[str, Any]) -> dict[str, Any] | None:
        """The stored result of ``key``, or None when there is none.

        Raises
        ------
        ResultsFolderError
            The record is there but does not read back whole: not JSON, another key, no
            checksum or one that does not match its content.
        """
        file = self._file(key)
        if not file.exists():
            return None
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise self._refused(file, f"it cannot be read as JSON ({exc})") from None
        if not isinstance(doc, dict) or set(doc) != {"key", "result", "seconds", "sha256"}:
            raise self._refused(file, "it is not a record (expected key, result, seconds, sha256)")
        if doc["sha256"] != _checksum(doc):
            raise self._refused(file, "its content does not match its checksum (edited?)")
        if doc["key"] != key or not isinstance(doc["result"], dict):
            raise self._refused(file, "it holds another fit's key")
        return doc["result"]

    def _refused(self, file: Path, why: str) -> ResultsFolderError:
        return ResultsFolderError(
            f"record {file} is refused: {why}. Its numbers are not used; delete the file and "
            "the fit is computed again"
        )

    def save(self, key: Mapping[str, Any], result: dict[str, Any], seconds: float) -> None:
        """Store one finished fit, with the checksum of its content."""
        doc: dict[str, Any] = {"key": key, "result": result, "seconds": round(seconds, 3)}
        doc = json.loads(json.dumps(doc, allow_nan=True))  # as load reads it back
        doc["sha256"] = _checksum(doc)
        _write_atomic(self._file(key), json.dumps(doc, allow_nan=True))


def _checksum(doc: Mapping[str, Any]) -> str:
    """SHA-256 of a record's key, result and seconds, as canonical JSON (sorted keys, no
    spaces): the same text after a JSON round trip, so a stored record checks exactly."""
    content = {k: doc[k] for k in ("key", "result", "seconds")}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _write_atomic(file: Path, text: str) -> None:
    """The package's one atomic writer (:func:`fairlist._json.write_text`), its folder made."""
    file.parent.mkdir(parents=True, exist_ok=True)
    write_text(file, text)


# --------------------------------------------------------------------------- data and tasks
def fingerprint(data: SweepData) -> str:
    """A short hash of the data a study fits (a changed binarization gives new records)."""
    h = hashlib.sha256()
    for array in (data.X, data.y, data.protected):
        h.update(np.ascontiguousarray(array).tobytes())
        h.update(str(array.shape).encode())
    h.update(json.dumps([list(data.feature_names), list(data.labels)]).encode())
    return h.hexdigest()[:16]
