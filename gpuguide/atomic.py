"""Writing a file whole or not at all: to a temporary file beside it, flushed to the disk, then
renamed over it. A full disk or a killed process leaves the previous file intact, never a cut one."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` atomically, keeping its permissions; OSError (the file as it
    was) when it cannot be written, the temporary file removed."""
    temporary = path.with_name(f".{path.name}.tmp-{os.getpid()}")
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
            os.fsync(fd)  # on the disk before the rename makes it the file
        finally:
            os.close(fd)
        os.chmod(temporary, mode)  # whatever the umask
        os.replace(temporary, path)
    finally:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
