"""Reading editors' files: the one gate every file the build reads goes through
(``open_project_file``), the walks that find them, the state that says a file changed
(``file_state``), and a file's text as UTF-8 (``read_text``).

Nothing but the standard library and ``gpuguide.errors`` is imported here: the no-change check
uses this module before anything else is loaded (YAML, in ``yaml_documents``, is not needed for it).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from gpuguide.errors import Problems


class FileState(NamedTuple):
    """What says a file changed, the one rule every cache and the no-change check use: size,
    modification and status-change times, inode. It is taken BEFORE the file is read, so an edit
    saved while a build runs always differs from what the build recorded (the next build sees it).
    A write changes ``ctime`` even when a tool restores ``mtime``."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int


def file_state(path: Path | str) -> FileState | None:
    """The state of ``path`` (following a symlink to its target), or None if it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return FileState(stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)


#: The largest file the build reads: far beyond any page, data file, template or asset of a site
#: (the real site's largest is under 1 MB), small enough that no file can exhaust memory.
MAX_FILE_BYTES = 16 * 1024 * 1024


class RefusedFile(Exception):
    """A file the build does not read: outside the project, not a regular file, or too large."""

    def __init__(self, path: Path | str, reason: str, hint: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason, self.hint = Path(path), reason, hint


def inside(root_real: str, path: str) -> bool:
    """Whether the resolved ``path`` is ``root_real`` (resolved) or under it."""
    return os.path.commonpath([root_real, path]) == root_real


#: While a batch of files is read (``folders_resolved_once``): each folder's resolved path, by path.
_resolved_folders: dict[str, str] | None = None


@contextlib.contextmanager
def folders_resolved_once() -> Iterator[None]:
    """Within it, the gate resolves each folder once, not once for each of its files: resolving a
    path looks up every folder above it, some 20 system calls for a page and its project's root,
    which were a sixth of loading ten thousand pages. Only the file's own name is looked up again
    (a link there is still resolved in full). For one batch of reads (a load): a folder replaced by a
    link afterwards is seen at the next."""
    global _resolved_folders
    outer, _resolved_folders = _resolved_folders, {} if _resolved_folders is None else _resolved_folders
    try:
        yield
    finally:
        _resolved_folders = outer


def resolved(path: Path | str) -> str:
    """``os.path.realpath(path)``, the folder part taken from ``folders_resolved_once``'s memo when
    one is open."""
    memo = _resolved_folders
    name = os.fspath(path)
    if memo is None or not os.path.isabs(name):
        return os.path.realpath(name)
    folder, base = os.path.split(name)
    real_folder = memo.get(folder)
    if real_folder is None:
        parts = folder.split(os.sep)
        # A ``..`` is resolved after the links before it, as realpath does: such a path, in full.
        real_folder = memo[folder] = "" if "." in parts or ".." in parts else os.path.realpath(folder)
    if not real_folder or base in ("", ".", ".."):
        return os.path.realpath(name)
    real = os.path.join(real_folder, base)
    return os.path.realpath(real) if os.path.islink(real) else real


def open_project_file(path: Path | str, root: Path | str | None, max_bytes: int = MAX_FILE_BYTES) -> tuple[int, int]:
    """The one gate for every file the build reads (content, data, UI strings, templates, assets):
    an open descriptor and the file's size, or RefusedFile when it resolves outside the project
    ``root`` (a symbolic link, or a linked folder above it), is no regular file (a named pipe would
    block the build for good, a device never ends) or is larger than ``max_bytes``;
    FileNotFoundError when it does not exist. ``root`` None: the caller found the file by a walk
    that kept to the project (a page's body, read again)."""
    real = resolved(path)
    if root is not None and not inside(resolved(root), real):
        raise RefusedFile(path, f"the file leads outside the project, to {real}",
                          "keep the site's files inside the project folder: copy the file in rather than link it")
    try:
        # Non-blocking: opening a named pipe must not wait for a writer; fstat then refuses it.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RefusedFile(path, f"the file cannot be read ({exc.strerror})",
                          "check its permissions: the build must be able to read it") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise RefusedFile(path, "it is not a regular file (a named pipe, a device or a socket)",
                              "replace it with an ordinary file")
        if status.st_size > max_bytes:
            raise RefusedFile(path, f"the file is {status.st_size:,} bytes, over the {max_bytes:,} a file may have",
                              "split it into smaller files")
    except BaseException:
        os.close(fd)
        raise
    return fd, status.st_size


def read_project_file(path: Path | str, root: Path | str | None, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """A file's bytes, through the gate (``open_project_file``)."""
    fd, expected = open_project_file(path, root, max_bytes)
    try:
        # The size it has, and one byte more: a file that grows while it is read stops at the limit too.
        chunks, size, want = [], 0, expected + 1
        while size <= max_bytes:
            chunk = os.read(fd, min(want, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size, want = size + len(chunk), 65536
        if size > max_bytes:
            raise RefusedFile(path, f"the file grew past the {max_bytes:,} bytes a file may have while it was read",
                              "split it into smaller files")
        return b"".join(chunks)
    except OSError as exc:
        raise RefusedFile(path, f"the file cannot be read ({exc.strerror})", "check the disk and the file") from None
    finally:
        os.close(fd)


#: Names the walks skip, everywhere: hidden files and editors' leftovers (an Emacs lock ``.#page.md``
#: and autosave ``#page.md#``, a macOS resource fork ``._page.md``, a backup ``page.md~``).
def ignored_name(name: str) -> bool:
    return name.startswith(".") or name.endswith("~") or (name.startswith("#") and name.endswith("#"))


class Walk(NamedTuple):
    """The files under a folder, and the entries refused with the reason."""

    files: list[Path]
    refused: list[tuple[Path, str]]


def walk_files(folder: Path, root: Path) -> Walk:
    """Every file under ``folder``, in sorted-path order (each folder's entries by name).

    Symbolic links are followed only when they stay inside the project ``root``: a link leaving
    it (which would publish any file of the machine), a broken link and a loop are refused, each
    with its reason, never followed.
    """
    files, refused = walk_names(folder, root)
    return Walk([Path(name) for name in files], [(Path(name), reason) for name, reason in refused])


#: A folder's entries are walked by name (the site's page order); read in C, not by a lambda per entry.
_NAME = attrgetter("name")


def walk_names(folder: Path, root: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """``walk_files`` with paths as strings: the no-change check walks every input file before
    anything else, and a ``Path`` made of each would be most of its work."""
    real_root = os.path.realpath(root)
    files: list[str] = []
    refused: list[tuple[str, str]] = []
    if folder.is_dir() and not inside(real_root, os.path.realpath(folder)):
        # The folder itself is a link (or under one) that leaves the project: none of it is read.
        return files, [(str(folder), f"the folder leads outside the project, to {os.path.realpath(folder)}")]

    def visit(current: str, above: frozenset[tuple[int, int]]) -> None:
        # A loop is a folder reached again below itself; a folder also reached through a link
        # elsewhere (a sibling alias) is no loop, and is walked under both names.
        stat = os.stat(current)
        identity = (stat.st_dev, stat.st_ino)
        if identity in above:
            refused.append((current, "the folder links back to a folder above it (a loop)"))
            return
        above = above | {identity}
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError as exc:
            refused.append((current, f"the folder cannot be read ({exc.strerror})"))
            return
        for entry in entries:
            if ignored_name(entry.name):
                continue
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if not inside(real_root, target):
                    refused.append((entry.path, f"the symbolic link leads outside the project, to {target}"))
                    continue
                if not os.path.exists(target):
                    refused.append((entry.path, "the symbolic link leads nowhere (its target is missing)"))
                    continue
            if entry.is_dir():
                visit(entry.path, above)
            elif entry.is_file():
                files.append(entry.path)
            else:
                refused.append((entry.path, "it is not a regular file (a named pipe, a device or a socket)"))

    if folder.is_dir():
        visit(str(folder), frozenset())
    return files, refused


#: Characters no page may carry: C0 and C1 controls but tab, line feed and carriage return (HTML
#: forbids them; a terminal escape in a title would reach every reader's tab).
CONTROL_CHARACTER = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def read_text(path: Path, problems: Problems) -> str | None:
    """The file's text, read through the gate (``read_project_file``, within ``problems.root``), or
    None after reporting why it cannot be used (refused, not UTF-8, empty)."""
    try:
        raw = read_project_file(path, problems.root)
    except FileNotFoundError:
        problems.error(path, 1, 1, "the file is missing", "restore it from version control")
        return None
    except RefusedFile as refused:
        problems.error(path, 1, 1, refused.reason, refused.hint)
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        # In characters, as every other position: the valid text before the byte on its line.
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start:exc.start].decode("utf-8", "replace")) + 1
        problems.error(path, line, column, f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                       "save it as UTF-8 in your editor")
        return None
    text = text.removeprefix("\ufeff")  # a byte order mark is no content
    control = CONTROL_CHARACTER.search(text)
    if control is not None:
        line = text.count("\n", 0, control.start()) + 1
        column = control.start() - (text.rfind("\n", 0, control.start()) + 1) + 1
        problems.error(path, line, column, f"the file contains the control character U+{ord(control.group()):04X}",
                       "delete the invisible control character (it often comes from copy and paste)")
        return None
    if not text.strip():
        problems.error(path, 1, 1, "the file is empty", "add content or delete the file")
        return None
    return text
