"""Workers end with the build: a forked worker that called ``die_with_parent`` is killed by the
kernel when its parent dies (even by SIGKILL); one that did not would live on. Linux only.

Each test forks a "build" process that forks a "worker"; the worker reports through a pipe, the
build is killed, and the test watches the worker's pid in /proc. Every child ends with os._exit (no
pytest teardown in a child), every wait has a timeout, and a worker still alive at the end is
killed by its pid."""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from gpuguide.processes import die_with_parent, forked_workers

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")

TIMEOUT = 5.0
_PR_SET_CHILD_SUBREAPER = 36


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its new parent to reap it counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


_pending: dict[int, bytes] = {}  # what was read past a newline, by pipe


def _read_line(fd: int, timeout: float = TIMEOUT) -> bytes:
    """The next line the children wrote (b"" at end of file or after ``timeout``)."""
    data, deadline = _pending.pop(fd, b""), time.monotonic() + timeout
    while b"\n" not in data and (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
    line, newline, rest = data.partition(b"\n")
    if rest:
        _pending[fd] = rest
    return line + newline


def _close(fd: int) -> None:
    _pending.pop(fd, None)  # a later pipe may get the same number
    os.close(fd)


def _child(body: Callable[[], None]) -> int:
    """Fork; the child runs ``body`` then exits at once (status 70 if ``body`` raised)."""
    pid = os.fork()
    if pid == 0:
        status = 70
        try:
            body()
            status = 0
        finally:
            os._exit(status)  # whatever happened: never return into pytest in a child
    return pid


@contextlib.contextmanager
def _worker_of_a_killed_build(worker: Callable[[int], None]) -> Iterator[int]:
    """A build process forks a worker running ``worker(write_fd)``; once the worker reports ready
    (``ready <pid>`` on the pipe), the build is killed with SIGKILL. Yields the worker's pid."""
    read_fd, write_fd = os.pipe()

    def the_build() -> None:
        _close(read_fd)
        _child(lambda: worker(write_fd))
        time.sleep(60)  # killed by the test long before

    build = _child(the_build)
    os.close(write_fd)
    worker_pid = 0
    try:
        word, _, pid = _read_line(read_fd).partition(b" ")
        assert word == b"ready", "the worker did not start"
        worker_pid = int(pid)
        os.kill(build, signal.SIGKILL)
        os.waitpid(build, 0)
        yield worker_pid
    finally:
        _close(read_fd)
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(build, signal.SIGKILL)
            os.waitpid(build, 0)
        if worker_pid and _alive(worker_pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker_pid, signal.SIGKILL)


def _gone_within(pid: int, timeout: float = TIMEOUT) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _sleeping_worker(protect: bool) -> Callable[[int], None]:
    def worker(write_fd: int) -> None:
        if protect:
            die_with_parent()
        os.write(write_fd, f"ready {os.getpid()}\n".encode())
        time.sleep(60)  # a worker still rendering pages

    return worker


def test_a_worker_dies_when_its_build_is_killed():
    with _worker_of_a_killed_build(_sleeping_worker(protect=True)) as worker:
        assert _gone_within(worker)


def test_without_it_a_worker_outlives_its_killed_build():
    # The control: the same worker without the request is left behind (so the test above can fail).
    with _worker_of_a_killed_build(_sleeping_worker(protect=False)) as worker:
        time.sleep(0.3)
        assert _alive(worker)


def test_die_with_parent_leaves_a_living_parent_alone():
    read_fd, write_fd = os.pipe()

    def worker() -> None:
        _close(read_fd)
        die_with_parent()
        os.write(write_fd, b"still here\n")

    pid = _child(worker)
    os.close(write_fd)
    try:
        assert _read_line(read_fd) == b"still here\n"
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        _close(read_fd)


def _orphan_then_die_with_parent(write_fd: int) -> None:
    """A worker whose build dies before it asks: it waits until it is an orphan, then asks."""
    parent = os.getppid()
    os.write(write_fd, b"ready\n")
    deadline = time.monotonic() + TIMEOUT
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.01)
    os.write(write_fd, f"adopted by {os.getppid()}\n".encode())
    die_with_parent()
    os.write(write_fd, b"survived\n")  # must not be reached: the parent is already gone


def _subreaper(body: Callable[[], None]) -> Callable[[], None]:
    """``body`` run in a process that adopts its orphaned descendants (``PR_SET_CHILD_SUBREAPER``),
    as systemd's user manager or a container's init does."""
    def run() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        body()

    return run


def _report_of_an_orphan(under_subreaper: bool) -> tuple[int, bool]:
    """A worker whose build died before it called ``die_with_parent``: the pid that adopted it, and
    whether it survived the call."""
    read_fd, write_fd = os.pipe()

    def build_and_worker() -> None:
        # The build forks the worker, waits for it to start, then dies at once.
        ready_r, ready_w = os.pipe()

        def the_build() -> None:
            _child(lambda: _orphan_then_die_with_parent(ready_w))
            _read_line(ready_r)

        build = _child(the_build)
        os.waitpid(build, 0)
        # Forward what the worker wrote after "ready" (the build read that), up to its exit.
        os.close(ready_w)
        os.write(write_fd, _read_line(ready_r) + _read_line(ready_r))
        # When a subreaper, this process is the orphan's new parent: reap it.
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, 0)[0] > 0:
                pass

    outer = _child(_subreaper(build_and_worker) if under_subreaper else build_and_worker)
    os.close(write_fd)
    try:
        adopted = _read_line(read_fd, 2 * TIMEOUT)
        assert adopted.startswith(b"adopted by "), adopted
        return int(adopted.split()[-1]), _read_line(read_fd) == b"survived\n"
    finally:
        _close(read_fd)
        os.waitpid(outer, 0)


def test_a_worker_whose_build_died_before_it_asked_exits():
    adopted_by, survived = _report_of_an_orphan(under_subreaper=False)
    if adopted_by != 1:  # pytest itself runs under a subreaper: that case is the xfail below
        pytest.skip(f"orphans are adopted by pid {adopted_by}, not init")
    assert not survived


def test_a_worker_whose_build_died_before_it_asked_exits_under_a_subreaper():
    adopted_by, survived = _report_of_an_orphan(under_subreaper=True)
    assert adopted_by != 1  # the scenario holds: a subreaper, not init, adopted it
    assert not survived


# --- forked_workers: the build's worker processes ----------------------------------------------

_PR_GET_PDEATHSIG = 2
_BEFORE_FORK: list[str] = []  # set in the test before the workers are forked


def _worker_report(index: int) -> tuple[int, int, int, list[str]]:
    """(index, pid, the signal the kernel sends this process when its parent dies, what it inherited)."""
    signal_number = ctypes.c_int()
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(_PR_GET_PDEATHSIG, ctypes.byref(signal_number), 0, 0, 0) == 0
    return index, os.getpid(), signal_number.value, list(_BEFORE_FORK)


def test_forked_workers_run_the_work_in_order_in_forked_processes_that_die_with_the_build(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "_BEFORE_FORK", ["loaded before the fork"])
    with forked_workers(2) as workers:
        reports = list(workers.map(_worker_report, range(40)))
    assert [index for index, *_ in reports] == list(range(40))  # in the order asked, whoever ran them
    pids = {pid for _, pid, _, _ in reports}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert all(death == signal.SIGKILL for _, _, death, _ in reports)  # die_with_parent ran in each
    assert all(inherited == ["loaded before the fork"] for *_, inherited in reports)  # forked, not spawned


def _fail_first_then_note(path_and_index: tuple[str, int]) -> int:
    path, index = path_and_index
    if index == 0:
        raise ValueError("the first chunk fails")
    time.sleep(0.01)
    with open(path, "a", encoding="utf-8") as out:
        out.write(f"{index}\n")
    return index


def test_an_error_in_a_worker_reaches_the_build_and_the_work_not_begun_is_cancelled(tmp_path):
    done = tmp_path / "done.txt"
    done.touch()
    with pytest.raises(ValueError, match="the first chunk fails"):
        with forked_workers(1) as workers:
            for _ in workers.map(_fail_first_then_note, [(str(done), index) for index in range(200)]):
                pass
    # Only what was already handed to the worker ran (its queue holds a couple of chunks), and
    # every worker has exited: nothing goes on writing after the build has failed.
    assert len(done.read_text(encoding="utf-8").split()) < 20
    assert not [child for child in mp.active_children()]
