"""The garbage collector during a build (standard library only).

A build loads the site once and keeps it to the end: hundreds of thousands of objects that hold no
garbage. The collector's full passes would walk them again and again (a large share of a one-page
edit on a big site: ``bench/README.md``), and, in forked workers, touch their memory pages so each worker copies them.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No collection while this runs: for loading what the build keeps (it makes no cycles worth
    collecting before the build ends)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """Everything made so far is out of the collector's sight while this runs (``gc.freeze``);
    nested uses keep it so until the outermost ends."""
    outermost = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        yield
    finally:
        if outermost:
            gc.unfreeze()


#: What ``leave_to_exit`` keeps alive.
_LEFT: list[object] = []


def leave_to_exit(value: object) -> None:
    """Keep ``value`` alive until the process ends: for a command that ends right after, by
    ``os._exit`` (``build.py``), which gives all its memory back at once. Freed when the build
    returns, a one-page edit's ten thousand pages, entries and caches took 45 ms, object by object.
    Never for a process that goes on (the dev server): it would keep every build."""
    _LEFT.append(value)
