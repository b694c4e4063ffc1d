"""Worker processes that end with the build: a build killed (even with SIGKILL) leaves no worker
behind still writing pages (standard library only)."""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

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


@contextlib.contextmanager
def forked_workers(count: int) -> Iterator[ProcessPoolExecutor]:
    """``count`` worker processes forked from this one, so each starts with what it has loaded,
    each killed with it (``die_with_parent``); give them work with the executor's ``map``.

    Not ``multiprocessing.Pool``: the thread that watches its workers also waits on the pipe their
    results come through, and turns round and round while a result waits there to be read (105,000
    turns in a cold build of 10,000 pages: a second of this process's CPU, taken from the cores
    the workers render on; ``bench/README.md``). This executor reads each result in the thread
    that waits for it. On an error, the work not begun is cancelled."""
    executor = ProcessPoolExecutor(count, mp_context=mp.get_context("fork"), initializer=die_with_parent)
    try:
        yield executor
    except BaseException:
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    executor.shutdown(wait=True)
