"""Helpers the tests share (not a test module): where things are, copies of the real project and of
the tiny fixture site, in-process builds, the command line in a subprocess, fingerprints of a site."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

from gpuguide.build.pipeline import Options, Outcome, run
from gpuguide.project import Project

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "tests" / "reference"  # copies of shared/seeds/
TINY = ROOT / "tests" / "fixtures" / "tiny"  # a small valid bilingual site: every layout, three GPUs
CHROMIUM = "/usr/bin/chromium"


def copy_project(destination: Path) -> Path:
    """A copy of the real project's inputs (content, data, templates), to build or break."""
    for part in ("content", "data", "templates"):
        shutil.copytree(ROOT / part, destination / part)
    return destination


def tiny_project(destination: Path) -> Path:
    """A copy of the tiny site, with the real templates and UI strings (they go together)."""
    shutil.copytree(TINY / "content", destination / "content")
    shutil.copytree(TINY / "data", destination / "data")
    shutil.copytree(ROOT / "data" / "ui", destination / "data" / "ui")
    shutil.copytree(ROOT / "templates", destination / "templates")
    return destination


def build(root: Path, **options: bool) -> Outcome:
    """Build the project at ``root`` in this process (no search index unless asked, no worker pool)."""
    options.setdefault("search", False)
    options.setdefault("parallel", False)
    return run(Project(root), Options(**options))


def build_cli(root: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python build.py <args> --root <root>`` in a subprocess, its output captured."""
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *args, "--root", str(root)],
                          capture_output=True, text=True, timeout=timeout)


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by relative path → SHA-256 of its bytes."""
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def edit(path: Path, old: str, new: str) -> None:
    """Replace the first ``old`` in the file by ``new`` (it must be there)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
