"""What the build keeps for later, and when it may trust it (the standard library, pydantic-core's
JSON and zlib-ng's CRC-32):

- ``cached_property``: computed once per instance, then read from the instance;
- cache files (``load``/``save``, and ``Journal``, appended to record by record): data only, never
  a format that runs code when it is read (a planted pickle would): JSON, behind a header and
  checksums verified before anything is decoded;
- ``Snapshot`` and ``settled``: the states of the build's inputs, and when a state alone can tell a
  later edit (``manifest.Manifest``, the content cache).

A cache is an optimisation: anything unexpected in its file (a length, a checksum, the format, the
key, a value of another type than the one written) means no cache, never an exception, never a
wrong page.
"""

from __future__ import annotations

import json
import os
import stat
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from pydantic_core import from_json, to_json
from zlib_ng.zlib_ng import crc32

from gpuguide import atomic, collector

if TYPE_CHECKING:
    from gpuguide.structure.project_files import FileState

T = TypeVar("T")


# --- cached_property ----------------------------------------------------------------------------------

class cached_property(Generic[T]):  # named as the one it replaces
    """``functools.cached_property`` without its lock. Python 3.11's takes a lock on every first
    access (3.12 removed it): loading ten thousand pages asks each for its path, URL and output
    path once, and the lock made that three times slower. Same contract: computed on first access,
    then stored in the instance's ``__dict__``, where later accesses find it without calling anything."""

    def __init__(self, function: Callable[[Any], T]):
        self.function = function
        self.name = function.__name__
        self.__doc__ = function.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached_property[T]:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value


# --- Cache files --------------------------------------------------------------------------------------
#
# A file: ``MAGIC``, ``FORMAT`` (4 bytes, little-endian), then records. A record: the length of its
# payload (8 bytes, little-endian), the CRC-32 of the payload (4 bytes, little-endian), the payload:
# UTF-8 JSON of lists, objects with text keys, text, numbers, true/false and null. Nothing is decoded
# before its length and checksum are verified; a file of ``load``/``save`` holds exactly one record.
# The checksum is there to catch damage (a cut, a flipped byte: CRC-32 catches every burst of up to
# 32 bits), not whoever can write the file, who could write any checksum (each decoder checks the
# types it relies on for that). zlib-ng's takes 0.5 ms for the 15 MB a one-page edit at ten thousand
# pages reads, where SHA-256 took 7.4 ms.

MAGIC = b"gpuguide-cache\n\0"
#: Bump when the framing or the payloads' shape changes: older files are then no cache.
FORMAT = 2
_HEADER = MAGIC + struct.pack("<I", FORMAT)
_FRAME = struct.Struct("<QI")
#: No cache file of a real site comes near (ten thousand pages: 20 MB); a larger one is not read.
MAX_CACHE_BYTES = 512 * 1024 * 1024


class Invalid(ValueError):
    """A cache file, or a value in it, that is not what this version of the code writes."""


#: What reading a cache file's payload may raise, each meaning "no cache": the JSON itself, or a
#: value of another shape than expected (each decoder checks the types it relies on).
_UNREADABLE = (ValueError, TypeError, KeyError, IndexError, RecursionError, OverflowError)


# The JSON is written and read by pydantic-core (in Rust): the very bytes and values of the standard
# library's compact form (whole numbers of any size, infinities), in a third of the time to write and
# two thirds of the time to read (a one-page edit at ten thousand pages reads 26 MB of it). It refuses
# a lone surrogate (a file name that is not UTF-8, read by the walk): a value holding one is written,
# and read, by the standard library, which keeps it as it is. Unlike the standard library, it also
# writes a set (as a list), bytes or a date (as text) instead of refusing them: callers pass JSON data
# only, and each decoder checks the types it relies on, so such a mistake reads back as no cache.

def _encode(value: Any) -> bytes:
    try:
        return to_json(value)
    except ValueError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False).encode(
            "utf-8", "surrogatepass")


def _decode(payload: bytes) -> Any:
    try:
        return from_json(payload, cache_strings=False)
    except ValueError:
        return json.loads(payload.decode("utf-8", "surrogatepass"))


def _record(payload: bytes) -> bytes:
    return _FRAME.pack(len(payload), crc32(payload)) + payload


def read_file(path: Path | str) -> bytes | None:
    """The bytes of a file of the cache, if it is a regular file (not a link, a pipe or a device:
    none can block or feed the build without end) of at most ``MAX_CACHE_BYTES``."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_CACHE_BYTES:
            return None
        chunks, size = [], 0
        while size <= MAX_CACHE_BYTES:  # the size it has, or until the limit if it grows meanwhile
            chunk = os.read(fd, max(status.st_size - size, 0) + 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return b"".join(chunks) if size <= MAX_CACHE_BYTES else None


def _payloads(data: bytes) -> Iterator[bytes]:
    """Each record's payload, verified; raises Invalid at the first thing out of place."""
    if not data.startswith(_HEADER):
        raise Invalid("not a cache file of this format")
    offset = len(_HEADER)
    while offset < len(data):
        if offset + _FRAME.size > len(data):
            raise Invalid("a record cut short")
        length, checksum = _FRAME.unpack_from(data, offset)
        start = offset + _FRAME.size
        if length > len(data) - start:
            raise Invalid("a record longer than the file")
        payload = data[start:start + length]
        if crc32(payload) != checksum:
            raise Invalid("a record whose checksum does not match")
        yield payload
        offset = start + length


def load(path: Path, key: str, decode: Callable[[Any], Any] = lambda value: value) -> Any | None:
    """The value saved at ``path`` for ``key``, through ``decode`` (which raises Invalid, or any
    of ``_UNREADABLE``, for a value not of the shape saved); None if missing, unreadable, damaged
    or saved for another key."""
    data = read_file(path)
    if data is None:
        return None
    try:
        # Decoding makes many objects and no reference cycle: the collector's passes over them (and
        # over all that is already loaded) would only cost.
        with collector.paused():
            payloads = list(_payloads(data))
            if len(payloads) != 1:
                return None
            saved = _decode(payloads[0])
            if type(saved) is not list or len(saved) != 2 or saved[0] != key:
                return None
            return decode(saved[1])
    except _UNREADABLE:
        return None


def save(path: Path, key: str, value: Any) -> None:
    """Save ``value`` (JSON data: lists, dicts with text keys, text, numbers, booleans, None; a
    tuple is saved as a list) for ``key``: to a temporary file, then renamed, so a killed build
    never leaves half a file; the temporary file is removed if writing it fails (a full disk)."""
    _write_whole(path, _HEADER + _record(_encode([key, value])))


def _write_whole(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(path, data)
    # What an earlier build, killed between writing and renaming, left.
    for leftover in path.parent.glob(f".{path.name}{atomic.TEMPORARY_SUFFIX}*"):
        leftover.unlink(missing_ok=True)


_MISSING = object()


def _as_dict(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise Invalid("expected an object")
    return value


class Journal:
    """Entries by name (``entries``) and a few other values (``extras``, JSON data), saved for one
    key, and saved incrementally: the first save writes them all as one record; a later save for
    the same key appends a record of only what changed — the entries that are not the very objects
    loaded (an entry kept from the last build is the same object), the names removed, the extras
    that differ. Loading replays the records in order. When the appended records would outgrow half
    the first one, the save writes the whole again instead (to a temporary file, renamed).

    How entries are written is the caller's: ``encode`` turns the entries of a record (a dict) into
    JSON data, ``decode`` turns that back into the dict, checking every type it relies on (so a
    record can share what its entries have in common). A build that edits one page of ten thousand
    so writes three entries, not ten thousand. Any record out of place (cut short by a build killed
    while appending, damaged, of another format or key) makes the whole file no cache, never a
    wrong one: a prefix of the records would be an older state.
    """

    def __init__(self, path: Path, key: str, entries: dict[str, Any] | None = None,
                 extras: dict[str, Any] | None = None, size: int = 0, first: int = 0):
        self.path = path
        self.key = key
        self.entries: dict[str, Any] = entries if entries is not None else {}
        self.extras: dict[str, Any] = extras if extras is not None else {}
        self._size = size  # bytes in the file as loaded or last saved
        self._first = first  # bytes of its header and first record

    @classmethod
    def load(cls, path: Path, key: str, decode: Callable[[Any], dict[str, Any]] = _as_dict) -> Journal:
        """What was saved at ``path`` for ``key``; empty if missing, unreadable, damaged or saved
        for another key."""
        data = read_file(path)
        if data is None:
            return cls(path, key)
        entries: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        first = 0
        try:
            with collector.paused():  # see ``load``
                for payload in _payloads(data):
                    record = _decode(payload)
                    if type(record) is not list or len(record) != 4 or record[0] != key:
                        return cls(path, key)
                    _, changed, removed, changed_extras = record
                    if type(removed) is not list or type(changed_extras) is not dict:
                        return cls(path, key)
                    entries.update(decode(changed))
                    for name in removed:
                        if type(name) is not str:
                            return cls(path, key)
                        entries.pop(name, None)
                    extras.update(changed_extras)
                    first = first or len(_HEADER) + _FRAME.size + len(payload)
        except _UNREADABLE:
            return cls(path, key)
        return cls(path, key, entries, extras, len(data), first)

    def save(self, entries: dict[str, Any], extras: dict[str, Any],
             encode: Callable[[dict[str, Any]], Any] = lambda entries: entries) -> None:
        """Save ``entries`` and ``extras``, appending what changed since the load when the file
        allows it; then they are what this journal holds."""
        with collector.paused():  # encoding makes many short-lived objects and no cycle
            self._save(entries, extras, encode)
        self.entries, self.extras = dict(entries), dict(extras)

    def _save(self, entries: dict[str, Any], extras: dict[str, Any], encode: Callable[[dict[str, Any]], Any]) -> None:
        encoded = None
        if 0 < self._first:
            changed = {name: entry for name, entry in entries.items() if self.entries.get(name) is not entry}
            removed = [name for name in self.entries if name not in entries]
            changed_extras = {name: value for name, value in extras.items()
                              if self.extras.get(name, _MISSING) != value}
            if not (changed or removed or changed_extras):
                return  # nothing to write
            encoded = encode(changed)
            record = _record(_encode([self.key, encoded, removed, changed_extras]))
            if self._size - self._first + len(record) <= self._first // 2 and self._append(record):
                return
            if len(changed) < len(entries):
                encoded = None
        # Everything changed (a full build): the entries are those just encoded.
        record = _HEADER + _record(_encode([self.key, encode(entries) if encoded is None else encoded, [], extras]))
        _write_whole(self.path, record)
        self._size = self._first = len(record)

    def _append(self, record: bytes) -> bool:
        """Append ``record`` if the file is still the one loaded or last saved (else False)."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return False
        with os.fdopen(fd, "ab") as out:
            if os.fstat(fd).st_size != self._size:
                return False
            out.write(record)
        self._size += len(record)
        return True


# --- What a file's state can tell -------------------------------------------------------------------

#: How far before a snapshot a file's times must be for its state to tell any later edit. File systems
#: keep times to a clock tick of a few milliseconds (ext4), to the second (ext3, HFS+, many network
#: shares) or to two seconds (FAT): an edit just after the snapshot may leave size and times as they
#: were. Such a file is compared by its content instead (as Git does for its "racily clean" entries).
SETTLE_NS = 2_000_000_000


def settled(state: Sequence[int], taken_ns: int) -> bool:
    """Whether ``state`` (a ``FileState``: size, mtime, ctime, inode), taken at ``taken_ns``
    (``time.time_ns()``, read before the state), differs from the state after any later edit: its
    modification and status-change times are over ``SETTLE_NS`` before the snapshot."""
    return max(state[1], state[2]) < taken_ns - SETTLE_NS


class Snapshot(dict[str, "FileState | str"]):
    """The state of every input file (or why it is refused), taken before the build reads any
    (``manifest.input_states``): when (``taken_ns``), and the content digest of each file whose state
    is not ``settled`` (``racy``), read then; ``walked``: the folders it holds every file of, in the
    walk's order (``project_files.walk_names``), so that the loader need not walk them again."""

    #: How a refused entry's state begins; the reason follows.
    REFUSED = "refused: "

    def __init__(self, states: Mapping[str, FileState | str] | Iterable[tuple[str, FileState | str]] = (),
                 taken_ns: int = 0, racy: dict[str, str] | None = None):
        super().__init__(states)
        self.taken_ns = taken_ns
        self.racy: dict[str, str] = racy if racy is not None else {}
        self.walked: set[str] = set()
