"""Publishing: the same input gives the same bytes, and a build killed at any moment leaves site/ intact."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT, copy_project
from test_bad_input import _fingerprint, run_build


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
