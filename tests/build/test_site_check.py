"""``manifest.SiteCheck``: which files of site/ are no longer as the last build wrote them, found by a
child process on the other core, or in this one when it cannot fork; the same answer either way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuguide.build import manifest
from gpuguide.build.manifest import SiteCheck


def _site(tmp_path: Path) -> tuple[Path, dict[str, tuple[int, int]]]:
    """A site of five files, and their states as a build records them (size, modification time)."""
    site = tmp_path / "site"
    for relative in ("index.html", "fr/index.html", "fr/og.png", "en/guides/index.html", "en/guides/og.png"):
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<p>{relative}</p>")
    written = {}
    for path in site.rglob("*"):
        if path.is_file():
            stat = path.stat()
            written[path.relative_to(site).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return site, written


def _touch_by_hand(site: Path) -> set[str]:
    """What a person may do to site/ between two builds: edit a file, restore one's size but not its
    time, delete one."""
    (site / "fr" / "index.html").write_text("<p>edited by hand, and longer</p>")
    page = site / "en" / "guides" / "index.html"
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    (site / "fr" / "og.png").unlink()
    return {"fr/index.html", "en/guides/index.html", "fr/og.png"}


@pytest.mark.parametrize("fork", [True, False])
def test_the_files_no_longer_as_written_are_found_and_the_others_keep_their_state(tmp_path: Path, fork: bool):
    site, written = _site(tmp_path)
    assert SiteCheck(site, written, fork=fork).changed() == frozenset()
    touched = _touch_by_hand(site)
    check = SiteCheck(site, written, fork=fork)
    assert check.changed() == touched
    assert check.as_written([*written, "not/written.html"]) == {relative: written[relative]
                                                               for relative in written if relative not in touched}


def test_the_child_is_waited_for_whether_or_not_its_answer_was_asked_for(tmp_path: Path):
    site, written = _site(tmp_path)
    for ask in (True, False):
        check = SiteCheck(site, written)
        assert check._child is not None  # a child looks at site/
        pid = check._child[0]
        if ask:
            assert check.changed() == frozenset()
        check.close()
        with pytest.raises(ChildProcessError):  # reaped: no zombie left for the dev server to pile up
            os.waitpid(pid, os.WNOHANG)


def test_without_a_child_or_its_answer_this_process_looks(tmp_path: Path, monkeypatch):
    site, written = _site(tmp_path)
    touched = _touch_by_hand(site)

    def no_fork() -> int:
        raise OSError(11, "Resource temporarily unavailable")

    with monkeypatch.context() as patch:
        patch.setattr(manifest.os, "fork", no_fork)
        assert SiteCheck(site, written).changed() == touched
    with monkeypatch.context() as patch:  # a system without fork (Windows)
        patch.delattr(manifest.os, "fork")
        check = SiteCheck(site, written)
        assert check._child is None and check.changed() == touched
    # A child that fails (here: its look raises) gives no answer: this process looks instead.
    parent = os.getpid()
    look = SiteCheck._look

    def failing_in_the_child(self: SiteCheck) -> list[str]:
        if os.getpid() != parent:
            raise MemoryError
        return look(self)

    monkeypatch.setattr(SiteCheck, "_look", failing_in_the_child)
    check = SiteCheck(site, written)
    assert check._child is not None
    assert check.changed() == touched


def test_nothing_written_needs_no_look(tmp_path: Path):
    check = SiteCheck(tmp_path / "site", {})
    assert check._child is None and check.changed() == frozenset() and check.as_written(["index.html"]) == {}
