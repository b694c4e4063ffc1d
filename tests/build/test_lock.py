"""One build at a time (``gpuguide.build.lock.BuildLock``): a second build waits (and is told
so), the lock is released when the first ends, even by an exception or a kill, and taking it
writes nothing in the project."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sites import ROOT

from gpuguide.build.lock import BuildLock


def _free(folder: Path) -> bool:
    """True when the lock can be taken at once (no wait, no message)."""
    told: list[str] = []
    try:
        with BuildLock(folder, told.append, timeout=0):
            pass
    except TimeoutError:
        return False
    return not told


def test_a_second_build_waits_is_told_why_and_gives_up_after_its_timeout(tmp_path: Path):
    told: list[str] = []
    with BuildLock(tmp_path):
        started = time.monotonic()
        with pytest.raises(TimeoutError), BuildLock(tmp_path, told.append, timeout=0.3):
            pytest.fail("two builds of the same project ran at once")
        waited = time.monotonic() - started
    assert waited >= 0.3  # it did wait, not give up at once
    assert len(told) == 1 and str(tmp_path) in told[0] and "waiting" in told[0]


def test_a_free_lock_is_taken_without_waiting_or_a_message(tmp_path: Path):
    told: list[str] = []
    with BuildLock(tmp_path, told.append, timeout=0):
        pass
    assert told == []


def test_the_lock_is_released_when_the_build_ends(tmp_path: Path):
    with BuildLock(tmp_path):
        assert not _free(tmp_path)
    assert _free(tmp_path)


def test_the_lock_is_released_after_an_exception(tmp_path: Path):
    with pytest.raises(RuntimeError), BuildLock(tmp_path):
        raise RuntimeError("the build failed")
    assert _free(tmp_path)


def test_a_waiting_build_runs_once_the_first_ends(tmp_path: Path):
    events: list[str] = []
    holding, release = threading.Event(), threading.Event()

    def first() -> None:
        with BuildLock(tmp_path):
            events.append("first starts")
            holding.set()
            release.wait(5)
            events.append("first ends")

    thread = threading.Thread(target=first)
    thread.start()
    assert holding.wait(5)

    def told_to_wait(message: str) -> None:
        events.append("second told to wait")
        release.set()  # the first build ends only once the second waits (no timeout: as long as needed)

    with BuildLock(tmp_path, told_to_wait):
        events.append("second starts")
    thread.join(5)
    assert events == ["first starts", "second told to wait", "first ends", "second starts"]


def test_locks_of_different_projects_do_not_wait_for_each_other(tmp_path: Path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with BuildLock(tmp_path / "one"):
        assert _free(tmp_path / "two")


def test_taking_the_lock_writes_nothing_in_the_project(tmp_path: Path):
    (tmp_path / "content").mkdir()
    before = sorted(os.listdir(tmp_path))
    with BuildLock(tmp_path):
        assert sorted(os.listdir(tmp_path)) == before
    assert sorted(os.listdir(tmp_path)) == before


def test_a_wait_that_times_out_leaks_no_file_descriptor(tmp_path: Path):
    def open_descriptors() -> int:
        return len(os.listdir("/proc/self/fd"))

    with BuildLock(tmp_path):
        before = open_descriptors()
        for _ in range(5):
            with pytest.raises(TimeoutError), BuildLock(tmp_path, timeout=0):
                pass
        assert open_descriptors() == before


def test_a_killed_build_leaves_no_stale_lock(tmp_path: Path):
    """The kernel drops the lock of a process killed with SIGKILL: nothing to clean up."""
    holder = ("import sys, time\nfrom pathlib import Path\nfrom gpuguide.build.lock import BuildLock\n"
              "with BuildLock(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", holder, str(tmp_path)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "held"
        assert not _free(tmp_path)  # another process holds it
    finally:
        process.kill()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()
    assert _free(tmp_path)
