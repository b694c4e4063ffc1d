"""System errors are messages, not internal errors: permission denied, a read-only file system, no
space left, a name too long, a file where a folder must be, a mount point that cannot be replaced…
Each, wherever in a build it strikes, gives one line naming the path and what to do, exit 1, the
previous site/ intact and no staging folder left. The machine's refusals are simulated (the tests run
as root, whom permissions do not stop); what input causes (a slug or an id too long for a file name,
a figure outside the arithmetic's range, `site` as a file) is real.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from gpuguide import atomic
from gpuguide.build import publish, workers
from gpuguide.commands import cli
from sites import build, fingerprint, tiny_project

ERRNOS = [errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG, errno.ENOTDIR,
          errno.EBUSY, errno.EXDEV, errno.EIO]


@pytest.fixture(scope="module")
def built_tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tiny_project(tmp_path_factory.mktemp("system") / "tiny")
    build(root)
    return root


@pytest.fixture
def project(built_tiny: Path, tmp_path: Path) -> Path:
    import shutil
    root = tmp_path / "tiny"
    shutil.copytree(built_tiny, root, symlinks=True)
    # A content edit: the next build renders and publishes, so every point below is reached.
    page = root / "content" / "fr" / "guides" / "premier-guide.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Un guide court", "Un guide bref"), encoding="utf-8")
    return root


def failing(code: int, path_of: str = "site/fr/index.html"):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code), path_of)
    return fail


def run_build(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = cli.main(["build", "--root", str(root), "--no-search", *args])
    return status, capsys.readouterr().err


def assert_clear_failure(status: int, stderr: str, root: Path, before: dict[str, str], path: str) -> None:
    assert status == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    first = stderr.splitlines()[0]
    assert first.startswith(f"error: {path}: ") and first.endswith(")"), stderr  # the path, what, and what to do
    assert stderr.splitlines()[-1].endswith("site/ was not changed"), stderr
    assert fingerprint(root / "site") == before
    assert not list(root.glob(".site-*")), "a staging folder was left behind"


#: Where a build touches the disk: writing a rendered page into the staging folder, making the
#: staging folder, copying the assets, swapping the staging folder into place.
POINTS = {
    "writing a page": (workers, "write_file"),
    "making the staging folder": (publish, "staging_dir"),
    "copying an asset": (publish.shutil, "copyfile"),
    "swapping the site in": (publish, "swap_into_place"),
}


@pytest.mark.parametrize("code", ERRNOS, ids=[errno.errorcode[c] for c in ERRNOS])
@pytest.mark.parametrize("point", POINTS)
def test_a_system_error_anywhere_is_one_clear_line(project: Path, capsys, monkeypatch, point: str, code: int):
    before = fingerprint(project / "site")
    module, name = POINTS[point]
    monkeypatch.setattr(module, name, failing(code, str(project / "site" / "fr" / "index.html")))
    status, stderr = run_build(project, capsys)
    assert_clear_failure(status, stderr, project, before, "site/fr/index.html")


def test_site_as_a_plain_file_is_refused_and_kept(project: Path, capsys):
    import shutil
    shutil.rmtree(project / "site")
    (project / "site").write_text("not a site", encoding="utf-8")
    status, stderr = run_build(project, capsys)
    assert status == 1 and "`site` is a file, not a folder" in stderr and "Traceback" not in stderr
    assert (project / "site").read_text(encoding="utf-8") == "not a site"
    assert not list(project.glob(".site-*"))


def test_translations_stamp_on_a_full_disk_keeps_the_file_whole(project: Path, capsys, monkeypatch):
    translation = project / "content" / "en" / "training.md"
    before = translation.read_bytes()
    monkeypatch.setattr(atomic.os, "fsync", failing(errno.ENOSPC, str(translation)))
    status = cli.main(["translations", "--root", str(project), "--stamp", str(translation)])
    stderr = capsys.readouterr().err
    assert status == 1 and "no space left on the device" in stderr and "Traceback" not in stderr, stderr
    assert translation.read_bytes() == before
    assert not [p for p in translation.parent.iterdir() if p.name.startswith(".")], "a temporary file was left"


def test_atomic_write_replaces_whole_and_keeps_permissions(tmp_path: Path):
    target = tmp_path / "page.md"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    atomic.write_bytes(target, b"new" * 1000)
    assert target.read_bytes() == b"new" * 1000
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in tmp_path.iterdir()] == ["page.md"]
