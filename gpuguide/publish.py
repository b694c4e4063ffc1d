"""Publishing: write the whole site into a temporary folder beside ``site/``, then swap it in.

The swap is one ``renameat2(RENAME_EXCHANGE)`` system call where the kernel has it, so ``site/`` is
at every instant either the previous site or the new one, even if the build is killed. Elsewhere
it falls back to two renames, and the next build restores ``site/`` if it was killed between them.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def staging_dir(site_dir: Path) -> Path:
    """A fresh, empty folder beside ``site_dir``; leftovers of killed builds are cleaned first."""
    recover(site_dir)
    staging = site_dir.parent / f".{site_dir.name}-staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def recover(site_dir: Path) -> None:
    """Undo what a killed build left: restore ``site/`` if needed, remove staging folders."""
    parent = site_dir.parent
    if not parent.exists():
        return
    previous = sorted(parent.glob(f".{site_dir.name}-previous-*"))
    if not site_dir.exists() and previous:
        os.rename(previous[-1], site_dir)
        previous = previous[:-1]
    for leftover in [*previous, *parent.glob(f".{site_dir.name}-staging-*")]:
        shutil.rmtree(leftover, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def swap_into_place(staging: Path, site_dir: Path) -> None:
    """Make ``staging`` the new ``site_dir`` and delete the previous site."""
    if not site_dir.exists():
        os.rename(staging, site_dir)
        return
    if _exchange(staging, site_dir):
        shutil.rmtree(staging)  # now holds the previous site
        return
    previous = site_dir.parent / f".{site_dir.name}-previous-{os.getpid()}"
    os.rename(site_dir, previous)
    os.rename(staging, site_dir)
    shutil.rmtree(previous)


def discard(staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
