"""One build at a time: ``build``, ``check`` and the dev server's rebuilds take the same lock.

An advisory lock (``flock``) on the project folder itself, so taking it writes nothing (``check``
writes nothing at all). The kernel releases it when the process that holds it ends, however it
ends (even ``kill -9``): a lock is never left stale, and there is nothing to clean up.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Callable


class BuildLock:
    """``with BuildLock(project_root, on_wait):`` runs the block while no other build of that project does."""

    def __init__(self, folder: Path, on_wait: Callable[[str], None] | None = None, timeout: float | None = None):
        self.folder, self.on_wait, self.timeout = folder, on_wait, timeout
        self._fd: int | None = None

    def __enter__(self) -> "BuildLock":
        fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.on_wait is not None:
                self.on_wait(f"another build of {self.folder} is running; waiting for it to finish")
            try:
                self._wait(fd)
            except BaseException:
                os.close(fd)
                raise
        self._fd = fd
        return self

    def _wait(self, fd: int) -> None:
        if self.timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"another build of {self.folder} still runs after {self.timeout:.0f} s") from None
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor releases the lock
            self._fd = None
