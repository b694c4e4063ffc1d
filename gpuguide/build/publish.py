"""Publishing: nothing reaches ``site/`` before the whole build (render, link check, index) succeeded.

Two ways, both starting from a staging folder beside ``site/`` that holds what the build wrote:

- Swap (full builds): the staging folder holds the whole site and replaces ``site/`` in one
  ``renameat2(RENAME_EXCHANGE)`` system call where the kernel has it, so ``site/`` is at every
  instant either the previous site or the new one, even if the build is killed. Elsewhere it
  falls back to two renames, and the next build restores ``site/`` if it was killed between them.
- Update in place (incremental builds, a few pages changed): the staging folder holds only the
  changed files. A journal listing the files to move in and the files to delete is written first
  (atomically), then each file is renamed over its old version (each page is at every instant
  the old or the new one, never half written), then the journal is removed. A build killed in
  between leaves the journal: the next build finishes the update before anything else (roll
  forward, as a database replays its write-ahead log). Renaming a few files instead of re-linking
  ten thousand is what makes a one-page edit take a fraction of a second to publish.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from typing import Callable
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def staging_dir(site_dir: Path) -> Path:
    """A fresh, empty folder beside ``site_dir`` (call ``recover`` first)."""
    staging = site_dir.parent / f".{site_dir.name}-staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def recover(site_dir: Path) -> None:
    """Repair what a killed build left: finish an interrupted update in place, restore ``site/``
    if it was killed between the two renames of a swap, remove staging folders."""
    parent = site_dir.parent
    if not parent.exists():
        return
    journal = _journal_path(site_dir)
    if journal.exists():
        if site_dir.is_dir():
            _finish_update(site_dir, journal)
        else:  # site/ was deleted since: the next build writes it whole
            journal.unlink()
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


def discard(staging: Path, site_dir: Path) -> None:
    """Remove the staging folder of a build that failed, unless an update in place from it has
    begun (the build was interrupted while moving files): the next build finishes that update."""
    if _journal_path(site_dir).exists():
        return
    shutil.rmtree(staging, ignore_errors=True)


def update_pending(site_dir: Path) -> bool:
    """True while an update in place of ``site_dir`` has begun and not finished."""
    return _journal_path(site_dir).exists()


def _journal_path(site_dir: Path) -> Path:
    return site_dir.parent / f".{site_dir.name}-journal.json"


def update_in_place(staging: Path, site_dir: Path, moves: Sequence[str]) -> None:
    """Move the files ``moves`` (paths relative to both folders) from ``staging`` over their
    versions in ``site_dir``, under a journal. (Only for the same set of files: an update never
    deletes one, since which pages exist is part of the build's global key.)"""
    journal = _journal_path(site_dir)
    temporary = journal.with_suffix(f".tmp-{os.getpid()}")
    with temporary.open("w", encoding="utf-8") as stream:
        json.dump({"staging": str(staging), "moves": list(moves)}, stream)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(temporary, journal)  # from here on, the update will be finished, now or by the next build
    _finish_update(site_dir, journal)


def _finish_update(site_dir: Path, journal: Path) -> None:
    """Apply a journal; safe to run again on a journal already partly (or wholly) applied."""
    try:
        plan = json.loads(journal.read_text(encoding="utf-8"))
        staging, moves = Path(plan["staging"]), list(plan["moves"])
    except (OSError, ValueError, KeyError, TypeError):
        journal.unlink(missing_ok=True)  # never completely written: the update never started
        return
    made: set[Path] = set()
    for relative in moves:
        source, target = staging / relative, site_dir / relative
        if not source.exists():
            continue  # moved before the build was killed
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        os.replace(source, target)
    journal.unlink()
    shutil.rmtree(staging, ignore_errors=True)


def asset_files(assets_dir: Path) -> dict[str, Path]:
    """Static files shipped with the templates, by output path (``assets/style.css``)."""
    if not assets_dir.is_dir():
        return {}
    return {f"assets/{path.relative_to(assets_dir).as_posix()}": path
            for path in sorted(assets_dir.rglob("*")) if path.is_file()}


def complete_and_swap(staging: Path, site_dir: Path, reused: Iterable[str], texts: dict[str, str],
                      assets: dict[str, Path], index_search: Callable[[Path], None] | None) -> None:
    """Complete the staging folder (it holds the rendered pages) into the whole site, and swap it in.

    Reused pages are hard-linked from site/ (never copied); ``index_search(staging)`` builds the
    search index, or None keeps the previous one (nothing was rendered again).
    """
    for output in sorted(reused):
        target = staging / output
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(site_dir / output, target)
    for relative, text in sorted(texts.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for relative, source in sorted(assets.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    if index_search is not None:
        index_search(staging)
    elif (site_dir / "pagefind").is_dir():
        shutil.copytree(site_dir / "pagefind", staging / "pagefind", copy_function=os.link)
    swap_into_place(staging, site_dir)


def update_changed(staging: Path, site_dir: Path, written: Iterable[str], texts: dict[str, str],
                   assets: dict[str, Path]) -> set[str]:
    """Move into ``site/`` only the files whose bytes changed; returns the rendered pages that came
    out the same (their old files stay, untouched).

    Which pages and assets exist is part of the build's global key: when it matched (the only case
    that comes here), site/ holds the same files as before, and none is to be deleted.
    """
    moves: list[str] = []
    same: set[str] = set()
    for output in sorted(written):
        try:
            if (site_dir / output).read_bytes() == (staging / output).read_bytes():
                same.add(output)
                continue
        except OSError:
            pass
        moves.append(output)
    others = {relative: text.encode("utf-8") for relative, text in texts.items()}
    others.update({relative: source.read_bytes() for relative, source in assets.items()})
    for relative, content in sorted(others.items()):
        try:
            if (site_dir / relative).read_bytes() == content:
                continue
        except OSError:
            pass
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        moves.append(relative)
    update_in_place(staging, site_dir, moves)
    return same
