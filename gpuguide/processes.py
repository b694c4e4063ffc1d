"""Worker processes that end with the build: a build killed (even with SIGKILL) leaves no worker
behind still writing pages (standard library only)."""

from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In a forked worker: ask the kernel to kill this process when its parent dies (Linux's
    ``prctl(PR_SET_PDEATHSIG)``); elsewhere, do nothing. Use as a pool's ``initializer``."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(1)
