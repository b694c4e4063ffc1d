"""Cache files: pickled, valid for one key, written whole or not at all, or appended to record by
record (``Journal``); standard library only."""

from __future__ import annotations

import os
import pickle
import struct
from collections.abc import Callable
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
    _write_whole(path, pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))


def _write_whole(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


_LENGTH = struct.Struct("<Q")  # each record of a journal: its length, then its pickle
_MISSING = object()


class Journal:
    """Entries by name (``entries``) and a few other values (``extras``), saved for one key, and
    saved incrementally: the first save writes them all as one record; a later save for the same
    key appends a record of only what changed — the entries that are not the very objects loaded
    (an entry kept from the last build is the same object), the names removed, the extras that
    differ. Loading replays the records in order. When the appended records outgrow half the first
    one, the next save writes the whole again (to a temporary file, renamed).

    A build that edits one page of ten thousand so writes three entries, not ten thousand (the
    build cache's 14 MB: 0.15 s). A record cut short (a build killed while appending) makes the
    whole file unreadable: no cache, never a wrong one.
    """

    def __init__(self, path: Path, key: str, entries: dict[str, Any] | None = None,
                 extras: dict[str, Any] | None = None, size: int = 0, first: int = 0):
        self.path = path
        self.key = key
        self.entries: dict[str, Any] = entries if entries is not None else {}
        self.extras: dict[str, Any] = extras if extras is not None else {}
        self._size = size  # bytes in the file as loaded or last saved
        self._first = first  # bytes of its first record

    @classmethod
    def load(cls, path: Path, key: str) -> Journal:
        """What was saved at ``path`` for ``key``; empty if missing, unreadable or saved for another key."""
        try:
            data = path.read_bytes()
        except OSError:
            return cls(path, key)
        entries: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        offset = first = 0
        view = memoryview(data)
        try:
            with collector.paused():  # see ``load``
                while offset < len(data):
                    (length,) = _LENGTH.unpack_from(data, offset)
                    start, offset = offset + _LENGTH.size, offset + _LENGTH.size + length
                    if offset > len(data):
                        return cls(path, key)  # cut short
                    saved_key, changed, removed, changed_extras = pickle.loads(view[start:offset])
                    if saved_key != key:
                        return cls(path, key)
                    entries.update(changed)
                    for name in removed:
                        entries.pop(name, None)
                    extras.update(changed_extras)
                    first = first or offset
        except (*_UNREADABLE, struct.error):
            return cls(path, key)
        return cls(path, key, entries, extras, len(data), first)

    def save(self, entries: dict[str, Any], extras: dict[str, Any],
             encode: Callable[[Any], Any] = lambda entry: entry) -> None:
        """Save ``entries`` and ``extras`` (``encode``: how an entry is written), appending what
        changed since the load when the file allows it; then they are what this journal holds."""
        appending = 0 < self._first and self._size - self._first <= self._first // 2
        if appending:
            changed = {name: encode(entry) for name, entry in entries.items() if self.entries.get(name) is not entry}
            removed = [name for name in self.entries if name not in entries]
            changed_extras = {name: value for name, value in extras.items()
                              if self.extras.get(name, _MISSING) != value}
            record = self._record(changed, removed, changed_extras)
            with open(self.path, "ab") as out:
                out.write(record)
            self._size += len(record)
        else:
            record = self._record({name: encode(entry) for name, entry in entries.items()}, [], extras)
            _write_whole(self.path, record)
            self._size = self._first = len(record)
        self.entries, self.extras = dict(entries), dict(extras)

    def _record(self, changed: dict[str, Any], removed: list[str], extras: dict[str, Any]) -> bytes:
        data = pickle.dumps((self.key, changed, removed, extras), protocol=pickle.HIGHEST_PROTOCOL)
        return _LENGTH.pack(len(data)) + data
