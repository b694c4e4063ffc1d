"""Helpers the tests share (not a test module): where things are, copies of the real project and of
the tiny fixture site, in-process builds, the command line in a subprocess, fingerprints of a site."""

from __future__ import annotations

import gc
import hashlib
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuguide.build.pipeline import Options, Outcome, run
from gpuguide.project import Project

if TYPE_CHECKING:
    from playwright.sync_api import Page

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


def processor_seconds(*runs: Callable[[], Any], rounds: int = 3) -> list[float]:
    """For each of ``runs``, the fastest of ``rounds`` timings, in processor seconds of this process
    (a loaded machine's other processes do not count). The runs take turns in each round, so that a
    busy moment of the machine (caches shared with the other test workers) slows them all, not the
    one that happened to run then. Without the garbage collector: its full passes come more often
    as a run allocates more, which makes a larger input cost more than its share, whatever the code
    timed does."""
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for index, run in enumerate(runs):
            gc.collect()
            gc.disable()
            try:
                start = time.process_time()
                run()
                best[index] = min(best[index], time.process_time() - start)
            finally:
                gc.enable()
    return best


def load_in_browser(page: Page, url: str, width: int, height: int = 900) -> list[str]:
    """Open ``url`` at that screen size and wait until the network is idle; the console errors and
    uncaught exceptions of the page, as they come (the list fills while the test goes on)."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": height})
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return errors
