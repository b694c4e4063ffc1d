"""Worker processes that end with the build: a build killed (even with SIGKILL) leaves no worker
behind still writing pages (standard library only)."""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1

#: The pid of the process that forked this one, noted in that process just before the fork: a
#: worker compares it with its parent after asking, since an orphan may be adopted by any
#: "subreaper" (systemd's user manager, a container's init), not only by pid 1.
_forked_by: int | None = None


def _note_forking_process() -> None:
    global _forked_by
    _forked_by = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_note_forking_process)


def die_with_parent() -> None:
    """In a forked worker: ask the kernel to kill this process when its parent dies (Linux's
    ``prctl(PR_SET_PDEATHSIG)``); elsewhere, do nothing. Use as a pool's ``initializer``."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    # The parent died before the request took effect: this process was adopted by another one.
    # (Not forked through Python's os.fork, only an adoption by init can be told.)
    adopted = os.getppid() != _forked_by if _forked_by is not None else os.getppid() == 1
    if adopted:
        os._exit(1)
