"""Writing a file whole or not at all, the one way the package does it: to a temporary file beside
it, then renamed over it. A killed process leaves the previous file or the new one, never a cut one;
``durable`` also flushes it to the disk first, so that a power cut does too (the publish journal,
the translation stamps: what an editor or the next build must be able to trust)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

TEMPORARY_SUFFIX = ".tmp-"  # ".<name>.tmp-<pid>": what an interrupted write leaves, and cleanup looks for


def write_bytes(path: Path | str, data: bytes, *, durable: bool = False, mode: int | None = None) -> None:
    """Replace ``path`` by ``data``, with ``mode`` or else the permissions it had (0o644 for a new
    file); OSError, with the file as it was and the temporary file removed, when it cannot be written."""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}{TEMPORARY_SUFFIX}{os.getpid()}")
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = 0o644
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)  # whatever the umask
            if durable:
                os.fsync(fd)  # on the disk before the rename makes it the file
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def write_text(path: Path, text: str, *, durable: bool = False) -> None:
    write_bytes(path, text.encode("utf-8"), durable=durable)
