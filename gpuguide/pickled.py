"""Cache files: pickled, valid for one key, written whole or not at all (standard library only)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

from gpuguide import collector

#: What unpickling a stale, truncated or foreign file can raise: all mean "no cache".
_UNREADABLE = (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError, KeyError,
               TypeError, ValueError)


def load(path: Path, key: str) -> Any | None:
    """The value saved at ``path`` for ``key``; None if missing, unreadable or saved for another key."""
    # Unpickling makes hundreds of thousands of objects and no reference cycle: the collector's
    # passes over them (and over all that is already loaded) would only cost (0.29 → 0.08 s for the
    # entries of 10,000 pages).
    try:
        with collector.paused():
            saved_key, value = pickle.loads(path.read_bytes())
    except _UNREADABLE:
        return None
    return value if saved_key == key else None


def save(path: Path, key: str, value: Any) -> None:
    """Save ``value`` for ``key``: to a temporary file, then renamed, so a killed build never leaves
    half a file; the temporary file is removed if writing it fails (a full disk)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temporary.write_bytes(pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
