"""Publishing: nothing reaches ``site/`` before the whole build (render, link check, index) succeeded,
and a build killed while publishing leaves the previous site.

Two ways, both from a staging folder beside the site folder (beside its target, when ``site`` is a
symbolic link to a deploy folder: the link is kept and the site published through it):

- Swap (full builds): the staging folder holds the whole site and replaces the site in one
  ``renameat2(RENAME_EXCHANGE)`` system call where the kernel has it, so the site is at every
  instant the previous one or the new one, even if the build is killed. Elsewhere it falls back
  to two renames, and the next run puts the previous site back if it was killed between them.
- Update in place (a few pages changed): the staging folder holds only the changed files. Each
  file about to be replaced is first hard-linked into the staging folder (a backup, no copy),
  and a journal listing the moves is written (atomically); then each new file is renamed over its
  old version (each page is at every instant the old or the new one, never half written); then
  the journal is removed. A build killed in between leaves the journal, and the next run (build,
  check or serve: ``recover`` comes first) puts every backup back: the previous site, whole.
  Renaming a few files instead of re-linking ten thousand keeps a one-page edit fast.

What is left once the site is published (the previous site after a swap, the staging folder after
an update) is set aside by a rename and deleted by ``remove_spent``: at the end of ``build.py``, but
by the dev server only once the reader has the new site (deleting the 261 files and 520 folders a
title edit leaves took 0.15-0.21 s of its rebuild). A run killed before deleting them leaves them
to the next one's ``recover``.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Callable

from gpuguide import atomic
from gpuguide.errors import BuildFailed, Problem, Problems
from gpuguide.structure.project_files import RefusedFile, open_project_file, walk_files

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
BACKUP = ".previous"  # in the staging folder: the files an update in place replaces


def check_site_folder(site_dir: Path) -> None:
    """BuildFailed when ``site`` exists and is no folder (a file, a link to one): a build would swap
    it for the new site, which is replacing a file nobody asked to replace."""
    real = site_folder(site_dir)
    if real.exists() and not real.is_dir():
        raise BuildFailed([Problem(site_dir.name, 1, 1, f"`{site_dir.name}` is a file, not a folder",
                                   f"move it away or delete it: the build writes the site into the folder {site_dir.name}/")])


def site_folder(site_dir: Path) -> Path:
    """Where the site really is: ``site_dir``, or the folder its symbolic link points to."""
    return site_dir.resolve() if site_dir.is_symlink() else site_dir


def staging_dir(site_dir: Path) -> Path:
    """A fresh, empty folder beside the site (call ``recover`` first)."""
    real = site_folder(site_dir)
    staging = real.parent / f".{real.name}-staging-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def recover(site_dir: Path) -> bool:
    """Put back the previous site if a build was killed while publishing, and remove what it left
    (staging folders, a site moved aside, folders set aside to delete). True if there was an update
    to undo."""
    real = site_folder(site_dir)
    parent = real.parent
    if not parent.exists():
        return False
    journal = _journal_path(real)
    undone = journal.exists()
    if undone:
        _undo_update(real, journal)
    previous = sorted(parent.glob(f".{real.name}-previous-*"))
    if not real.exists() and previous:
        os.rename(previous[-1], real)
        previous = previous[:-1]
    for leftover in [*previous, *parent.glob(f".{real.name}-staging-*")]:
        shutil.rmtree(leftover, ignore_errors=True)
    remove_spent(site_dir)
    return undone


def _set_aside(folder: Path, real: Path) -> None:
    """Rename ``folder`` (published from, or replaced: nothing in it is needed) for ``remove_spent``."""
    os.rename(folder, real.parent / f".{real.name}-spent-{os.getpid()}-{time.monotonic_ns()}")


def remove_spent(site_dir: Path, interrupted: Callable[[], bool] | None = None) -> bool:
    """Delete the folders builds set aside once they had published (``_set_aside``); True when none
    is left. With ``interrupted``, folder by folder, stopping as soon as it says so: the dev server
    deletes while idle, and an edit saved meanwhile must not wait for a whole previous site to go
    (twenty thousand files at 10,000 pages: 7 s)."""
    real = site_folder(site_dir)
    if not real.parent.exists():
        return True
    for spent in real.parent.glob(f".{real.name}-spent-*"):
        if interrupted is None:
            shutil.rmtree(spent, ignore_errors=True)
            continue
        for folder, folders, files in os.walk(spent, topdown=False):  # links are not followed
            if interrupted():
                return False
            for name in files:
                _quietly(os.unlink, os.path.join(folder, name))
            for name in folders:  # emptied already, or a link to a folder
                path = os.path.join(folder, name)
                _quietly(os.unlink if os.path.islink(path) else os.rmdir, path)
        _quietly(os.rmdir, str(spent))
    return True


def _quietly(remove: Callable[[str], None], path: str) -> None:
    try:
        remove(path)
    except OSError:  # gone already, or not ours to delete: as ``shutil.rmtree(ignore_errors=True)``
        pass


def _exchange(a: Path, b: Path) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return result == 0


def swap_into_place(staging: Path, site_dir: Path) -> None:
    """Make ``staging`` the new site and delete the previous one."""
    real = site_folder(site_dir)
    if not real.exists():
        os.rename(staging, real)
        return
    if _exchange(staging, real):
        _set_aside(staging, real)  # now holds the previous site
        return
    previous = real.parent / f".{real.name}-previous-{os.getpid()}"
    os.rename(real, previous)
    os.rename(staging, real)
    _set_aside(previous, real)


def discard(staging: Path, site_dir: Path) -> None:
    """After a failed or interrupted build: undo an update in place it had begun, remove its staging folder."""
    recover(site_dir)
    shutil.rmtree(staging, ignore_errors=True)


def _journal_path(real_site: Path) -> Path:
    return real_site.parent / f".{real_site.name}-journal.json"


def update_in_place(staging: Path, site_dir: Path, moves: Sequence[str]) -> None:
    """Move the files ``moves`` (paths relative to both folders) from ``staging`` over their
    versions in the site, each old version kept as a backup until all are moved."""
    real = site_folder(site_dir)
    backups = staging / BACKUP
    for relative in moves:
        old = real / relative
        if old.exists():
            (backups / relative).parent.mkdir(parents=True, exist_ok=True)
            os.link(old, backups / relative)
    journal = _journal_path(real)
    # From here on, a killed build is undone by the next run.
    atomic.write_text(journal, json.dumps({"staging": str(staging), "moves": list(moves)}), durable=True)
    made: set[Path] = set()
    for relative in moves:
        target = real / relative
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        os.replace(staging / relative, target)
    journal.unlink()  # the update is complete
    _set_aside(staging, real)


def _undo_update(real: Path, journal: Path) -> None:
    """Put back every file an interrupted update replaced; remove the files it added."""
    try:
        plan = json.loads(journal.read_text(encoding="utf-8"))
        staging, moves = Path(plan["staging"]), list(plan["moves"])
    except (OSError, ValueError, KeyError, TypeError):
        journal.unlink(missing_ok=True)  # never completely written: nothing was moved
        return
    for relative in moves:
        backup, target = staging / BACKUP / relative, real / relative
        if backup.exists():
            os.replace(backup, target)
        elif not (staging / relative).exists():  # a file this update added, already moved in
            target.unlink(missing_ok=True)
    journal.unlink()
    shutil.rmtree(staging, ignore_errors=True)


def asset_files(assets_dir: Path, root: Path, problems: Problems) -> dict[str, Path]:
    """Static files shipped with the templates, by output path (``assets/style.css``); a symlink
    leaving the project (which would publish any file of the machine) is an error."""
    walk = walk_files(assets_dir, root)
    for path, reason in walk.refused:
        problems.error(path, 1, 1, reason, "keep the site's files inside the project folder")
    found = {}
    for path in walk.files:
        try:  # through the gate: inside the project, a regular file, within the size limit
            fd, _ = open_project_file(path, root)
            os.close(fd)
        except (RefusedFile, FileNotFoundError) as refused:
            reason, hint = ((refused.reason, refused.hint) if isinstance(refused, RefusedFile)
                            else ("the file vanished while the build read the folder", "build again"))
            problems.error(path, 1, 1, reason, hint)
            continue
        found[f"assets/{path.relative_to(assets_dir).as_posix()}"] = path
    return found


def complete_and_swap(staging: Path, site_dir: Path, reused: Iterable[str], texts: dict[str, str],
                      assets: dict[str, Path], index_search: Callable[[Path], None] | None,
                      cached: dict[str, str] | None = None) -> None:
    """Complete the staging folder (it holds the rendered pages) into the whole site, and swap it in.

    Reused pages are hard-linked from site/ (never copied), and so are the ``cached`` files (the
    sharing cards of the build cache: named by their content, never rewritten; copying ten
    thousand of them took seconds); ``assets`` are copied (an edit in site/ must not reach the
    templates). ``index_search(staging)`` builds the search index, or None keeps the previous one
    (nothing was rendered again).
    """
    for output in sorted(reused):
        target = staging / output
        target.parent.mkdir(parents=True, exist_ok=True)  # a kept page's folder is new in staging
        os.link(site_dir / output, target)
    for relative, text in sorted(texts.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    for relative, source in sorted(assets.items()):
        target = staging / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    for relative, drawing in sorted((cached or {}).items()):
        card = os.path.join(staging, relative)
        try:
            _link(drawing, card)
        except OSError:  # another file system, or one without hard links
            shutil.copyfile(drawing, card)
    if index_search is not None:
        index_search(staging)
    elif (site_dir / "pagefind").is_dir():
        shutil.copytree(site_dir / "pagefind", staging / "pagefind", copy_function=os.link)
    swap_into_place(staging, site_dir)


def _link(source: str, target: str) -> None:
    """Hard-link ``source`` as ``target``, making ``target``'s folder only if the link finds it
    missing: a card goes beside its page, in a folder made already (ten thousand ``mkdir`` calls
    that fail cost a tenth of a second of the build's own process). A missing ``source`` fails the
    second link as it did the first."""
    try:
        os.link(source, target)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.link(source, target)


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


def search_files(site_dir: Path, search: bool) -> list[str]:
    """The search index's files in ``site_dir`` (none when the build makes no index)."""
    index = site_dir / "pagefind"
    if not search or not index.is_dir():
        return []
    return [path.relative_to(site_dir).as_posix() for path in index.rglob("*") if path.is_file()]
