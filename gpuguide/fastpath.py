"""The no-change rebuild: when no input changed since the last successful build and site/ is as that
build left it, there is nothing to do, and the command says so without loading anything.

Standard library only, so the check runs before the generator's heavy imports (pydantic, Jinja2,
Babel). The manifest (``.build-cache/inputs.pickle``: builtin types only, read in a blink) lists the size and modification time of every
input file (content, data, templates, the generator's code), the library versions, the build
options, and of every file the build wrote to site/; a build writes it only after it succeeded.
Files someone else put in site/ are not the build's concern (an update in place leaves them, as
Hugo does; a full build, which swaps in a new folder, drops them).
"""

from __future__ import annotations

import pickle
import os
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from .project import Project

MANIFEST = "inputs.pickle"
_LIBRARIES = ("jinja2", "markdown-it-py", "mdit-py-plugins", "babel", "pydantic", "num2words", "pyyaml",
              "python-slugify", "pagefind")


def _files(folder: Path) -> dict[str, list[int]]:
    """Size and mtime of every file under ``folder``, by path (os.scandir: no per-file Path objects)."""
    found: dict[str, list[int]] = {}
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                stat = entry.stat(follow_symlinks=False)
                found[entry.path] = [stat.st_size, stat.st_mtime_ns]
    return found


def _inputs_state(project: Project, options: dict[str, bool]) -> dict[str, Any]:
    versions = {}
    for name in _LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    inputs: dict[str, list[int]] = {}
    for folder in (project.content_dir, project.data_dir, project.templates_dir):
        inputs.update(_files(folder))
    code = _files(Path(__file__).resolve().parent)
    inputs.update({path: stat for path, stat in code.items() if path.endswith(".py")})
    return {"python": sys.version, "libraries": versions, "options": options, "inputs": inputs}


def _changed(site_dir: Path, recorded: dict[str, list[int]]) -> bool:
    """True if a file the last build wrote is missing or not as it left it (one stat per file:
    cheaper than listing a folder per page)."""
    for relative, (size, mtime_ns) in recorded.items():
        try:
            stat = os.stat(os.path.join(site_dir, relative))
        except OSError:
            return True
        if stat.st_size != size or stat.st_mtime_ns != mtime_ns:
            return True
    return False


def up_to_date(project: Project, options: dict[str, bool]) -> dict[str, Any] | None:
    """The last build's summary if nothing changed since it (then site/ is already right), else None."""
    try:
        manifest = pickle.loads((project.cache_dir / MANIFEST).read_bytes())
        state = manifest["state"]
        written = state.pop("site")
        if not isinstance(written, dict):
            return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, pickle.UnpicklingError):
        return None
    # Inputs first: after an edit they differ, and site/ need not be looked at.
    if state != _inputs_state(project, options) or _changed(project.site_dir, written):
        return None
    return manifest.get("summary")


def record(project: Project, options: dict[str, bool], pages: int, warnings: list[str],
           written: dict[str, tuple[int, int]]) -> None:
    """After a successful build: what it was built from, and the size and modification time of
    every file it wrote (path relative to site/: the build knows them, no need to list site/)."""
    state = {**_inputs_state(project, options), "site": {path: list(stat) for path, stat in written.items()}}
    manifest = {"state": state, "summary": {"pages": pages, "warnings": warnings}}
    path = project.cache_dir / MANIFEST
    temporary = path.with_suffix(f".tmp-{os.getpid()}")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary.write_bytes(pickle.dumps(manifest, protocol=pickle.HIGHEST_PROTOCOL))
    os.replace(temporary, path)
