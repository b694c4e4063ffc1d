"""Publishing: the same input gives the same bytes, and a build killed at any moment leaves site/ intact."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sites import ROOT, copy_project
from sites import build_cli as run_build, fingerprint as _fingerprint

pytestmark = pytest.mark.slow


def test_two_builds_of_the_same_project_are_byte_identical(tmp_path: Path):
    first = copy_project(tmp_path / "one")
    second = copy_project(tmp_path / "two")  # another folder: no absolute path may leak into the output
    env_epoch = {"SOURCE_DATE_EPOCH": "1700000000"}
    assert run_build(first).returncode == 0
    built_once = _fingerprint(first / "site")
    assert run_build(first).returncode == 0
    assert _fingerprint(first / "site") == built_once
    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(second)],
                            capture_output=True, text=True, timeout=120, env={**os.environ, **env_epoch})
    assert result.returncode == 0, result.stderr
    assert _fingerprint(second / "site") == built_once


def test_a_build_killed_at_any_moment_leaves_the_previous_site(tmp_path: Path):
    root = copy_project(tmp_path)
    assert run_build(root).returncode == 0
    before = _fingerprint(root / "site")
    delays = [0.05, 0.3, 0.7, 1.1, 1.5]
    random.Random(0).shuffle(delays)
    for delay in delays:
        delay *= random.uniform(0.8, 1.2)
        process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "--root", str(root)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert _fingerprint(root / "site") == before, f"site/ changed by a build killed after {delay:.2f} s"
    result = run_build(root)
    assert result.returncode == 0, result.stderr
    assert _fingerprint(root / "site") == before
    assert not [p.name for p in root.iterdir() if p.name.startswith(".site-")], "leftover staging folders"


def _inodes(site: Path) -> dict[str, int]:
    return {p.relative_to(site).as_posix(): p.stat().st_ino for p in site.rglob("*") if p.is_file()}


def _edit_one_page(root: Path) -> Path:
    page = root / "content" / "en" / "llm-training.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    return page


def test_an_edit_updates_only_the_changed_files_in_place(tmp_path: Path):
    from gpuguide.build.pipeline import Options, run
    from gpuguide.project import Project

    project = Project(copy_project(tmp_path))
    run(project, Options(search=False))
    before = _inodes(project.site_dir)
    _edit_one_page(project.root)
    run(project, Options(search=False))
    after = _inodes(project.site_dir)
    assert after.keys() == before.keys()
    replaced = {path for path in after if after[path] != before[path]}
    assert replaced == {"en/llm-training/index.html"}  # root and 404 came out the same: kept
    assert "One more sentence." in (project.site_dir / "en" / "llm-training" / "index.html").read_text("utf-8")
    leftovers = [p.name for p in project.root.iterdir() if p.name.startswith(".site-")]
    assert not leftovers, leftovers


def test_an_update_in_place_cut_short_is_finished_by_the_next_build(tmp_path: Path, monkeypatch):
    """Killed between two renames of an update in place: each file is whole (old or new), and the
    next build finishes the update from its journal before doing anything else."""
    import gpuguide.build.publish as publish
    from gpuguide.build.pipeline import Options, run
    from gpuguide.project import Project
    from test_incremental import clean_build, fingerprint

    project = Project(copy_project(tmp_path / "project"))
    run(project, Options(search=False))
    old = fingerprint(project.site_dir)
    # A template change for GPU pages: dozens of files to move, interrupted after the first.
    template = project.templates_dir / "gpu.html"
    template.write_text(template.read_text(encoding="utf-8").replace(
        "{% endblock %}", "<p>New line.</p>{% endblock %}", 1), encoding="utf-8")
    real_replace, moved = os.replace, []

    def replace_then_die(source, target):
        into_site = str(target).startswith(str(project.site_dir) + os.sep)
        if into_site and moved:
            raise KeyboardInterrupt  # as a kill would, between two files
        real_replace(source, target)
        if into_site:
            moved.append(target)

    monkeypatch.setattr(publish.os, "replace", replace_then_die)
    try:
        run(project, Options(search=False))
    except KeyboardInterrupt:
        pass
    else:
        raise AssertionError("the update was not interrupted")
    monkeypatch.setattr(publish.os, "replace", real_replace)
    assert publish.update_pending(project.site_dir)
    halfway = fingerprint(project.site_dir)
    assert halfway.keys() == old.keys()
    changed = {path for path in halfway if halfway[path] != old[path]}
    assert len(changed) == 1  # one page moved in, whole; the others still the old ones

    # The next build finishes the update first; what it publishes is what a clean build gives.
    run(project, Options(search=False))
    assert not publish.update_pending(project.site_dir)
    assert fingerprint(project.site_dir) == clean_build(project.root, tmp_path)
    assert not [p.name for p in project.root.iterdir() if p.name.startswith(".site-")], "leftovers"
