"""Publishing: the same input gives the same bytes, and a build killed at any moment leaves site/ intact."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sites import ROOT, copy_project
from sites import build_cli as run_build, fingerprint as _fingerprint

pytestmark = pytest.mark.slow


def _ours(site: Path) -> dict[str, str]:
    """Every file the generator writes. Not Pagefind's index: it lists a filter's values in a
    different order from one run to the next (a hash map's order), with names that follow."""
    return {path: digest for path, digest in _fingerprint(site).items() if not path.startswith("pagefind/")}


def _search_files(site: Path) -> list[str]:
    return sorted(path.relative_to(site).as_posix().split("_")[0] for path in (site / "pagefind").rglob("*")
                  if path.is_file())


def test_two_builds_of_the_same_project_are_byte_identical(tmp_path: Path):
    first = copy_project(tmp_path / "one")
    second = copy_project(tmp_path / "two")  # another folder: no absolute path may leak into the output
    env_epoch = {"SOURCE_DATE_EPOCH": "1700000000"}
    assert run_build(first).returncode == 0
    built_once = _ours(first / "site")
    assert run_build(first).returncode == 0
    assert _ours(first / "site") == built_once
    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(second)],
                            capture_output=True, text=True, timeout=120, env={**os.environ, **env_epoch})
    assert result.returncode == 0, result.stderr
    assert _ours(second / "site") == built_once
    assert _search_files(second / "site") == _search_files(first / "site")  # the same index, file for file


def _staged(root: Path) -> str | None:
    """What a build is writing right now: "staging" (pages into a folder beside site/), "journal"
    (renaming files into site/ under a journal), or None."""
    if list(root.glob(".site-journal.json")):
        return "journal"
    if any(any(folder.iterdir()) for folder in root.glob(".site-staging-*")):
        return "staging"
    return None


def _writing_window(root: Path, args: list[str]) -> tuple[float, float]:
    """Build once, watching: (when the build started writing pages, when it was done), in seconds."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), *args, "--root", str(root)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    writing = None
    while process.poll() is None:
        if writing is None and _staged(root) is not None:
            writing = time.perf_counter() - started
        time.sleep(0.005)
    done = time.perf_counter() - started
    assert process.returncode == 0
    assert writing is not None, "the build was never seen writing"
    return writing, done


def _kill_during(root: Path, args: list[str], seconds: float, kills: int, seed: int,
                 new: dict[str, str] | None = None, start: float = 0.0) -> dict[str, int]:
    """Start the build ``kills`` times, each killed (SIGKILL) at a moment spread from ``start`` to
    ``seconds``;
    after each, the next read of site/ (``recover``) finds the previous site whole, or the ``new``
    one whole (the kill came after it was published), never a mix. Returns where the kills landed."""
    from gpuguide.build.publish import recover

    before = _fingerprint(root / "site")
    landed = {"staging": 0, "journal": 0, "elsewhere": 0}
    rng = random.Random(seed)
    for attempt in range(kills):
        delay = start + (seconds - start) * (attempt + rng.random()) / kills
        process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), *args, "--root", str(root)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        landed[_staged(root) or "elsewhere"] += 1
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        recover(root / "site")  # what every command does first
        after = _fingerprint(root / "site")
        assert after == before or after == new, f"a mixed site/ after a build killed after {delay:.2f} s"
        if after == new:
            return landed  # published: the next builds have nothing left to do
        assert not [p.name for p in root.iterdir() if p.name.startswith(".site-")], "leftovers after recovery"
    return landed


def test_a_build_killed_while_writing_leaves_the_previous_site(tmp_path: Path):
    """Cold builds and in-place updates with real changes, each killed at moments spread over its
    run from a little before it starts writing, most of them while it writes: the previous site is
    whole after every kill."""
    root = copy_project(tmp_path)
    assert run_build(root, "--no-search").returncode == 0
    # Cold builds: no cache, every page rendered and written into the staging folder, then swapped.
    shutil.rmtree(root / ".build-cache")
    writing, cold = _writing_window(root, ["--no-search"])
    cold_kills = {"staging": 0, "journal": 0, "elsewhere": 0}
    # Rounds of ten kills until ten landed while pages were written: on a machine loaded by other
    # test workers a build's moments drift from the window measured once (8 of 20 landed there).
    for seed in range(6):
        if cold_kills["staging"] >= 10:
            break
        shutil.rmtree(root / ".build-cache", ignore_errors=True)
        for where, count in _kill_during(root, ["--no-search"], cold, 10, seed, start=0.8 * writing).items():
            cold_kills[where] += count
    # In-place updates: a price changes, so every page that shows it is rendered and renamed in.
    assert run_build(root, "--no-search").returncode == 0
    prices = root / "data" / "prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8").replace("h100-sxm: 2.88", "h100-sxm: 2.89"), encoding="utf-8")
    started = time.perf_counter()
    probe = copy_project(tmp_path / "probe")
    shutil.copytree(root / "site", probe / "site")
    shutil.copytree(root / ".build-cache", probe / ".build-cache")
    (probe / "data" / "prices.yaml").write_text(prices.read_text(encoding="utf-8"), encoding="utf-8")
    assert run_build(probe, "--no-search").returncode == 0
    update = time.perf_counter() - started
    update_kills = _kill_during(root, ["--no-search"], update, 20, 7, new=_fingerprint(probe / "site"))
    print(f"\nkills: cold builds {cold_kills} (run {cold:.1f} s), in-place updates {update_kills} "
          f"(run {update:.1f} s)")
    assert cold_kills["staging"] >= 10, cold_kills  # most kills landed while pages were being written
    assert update_kills["staging"] + update_kills["journal"] >= 3, update_kills
    # After all that, a build publishes the new price, whole.
    assert run_build(root, "--no-search").returncode == 0
    assert "2,89" in (root / "site" / "fr" / "gpu" / "h100-sxm" / "index.html").read_text(encoding="utf-8")


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


def test_an_update_in_place_cut_short_is_rolled_back_by_the_next_run(tmp_path: Path, monkeypatch):
    """Interrupted between two renames of an update in place: each file is whole (old or new), and
    the next run puts every old file back before anything reads site/; then it builds."""
    import gpuguide.build.publish as publish
    from gpuguide.build.pipeline import Options, run
    from gpuguide.project import Project

    project = Project(copy_project(tmp_path / "project"))
    run(project, Options(search=False))
    old = _fingerprint(project.site_dir)
    # A template change for GPU pages: dozens of files to move, interrupted after the first.
    template = project.templates_dir / "gpu.html"
    template.write_text(template.read_text(encoding="utf-8").replace(
        "{% endblock %}", "<p>New line.</p>{% endblock %}", 1), encoding="utf-8")
    real_replace, moved = os.replace, []

    def replace_then_die(source, target):
        into_site = str(target).startswith(str(project.site_dir) + os.sep)
        if into_site and moved:
            raise SystemExit("killed")  # as a kill would, between two files (nothing else runs)
        real_replace(source, target)
        if into_site:
            moved.append(target)

    monkeypatch.setattr(publish.os, "replace", replace_then_die)
    monkeypatch.setattr(publish, "discard", lambda staging, site_dir: None)  # a kill runs no cleanup
    with pytest.raises(SystemExit):
        run(project, Options(search=False))
    monkeypatch.undo()
    halfway = _fingerprint(project.site_dir)
    assert halfway.keys() == old.keys()
    assert len({path for path in halfway if halfway[path] != old[path]}) == 1  # one page moved in, whole

    assert publish.recover(project.site_dir) is True  # what the next run does first: roll back
    assert _fingerprint(project.site_dir) == old
    run(project, Options(search=False))
    assert "New line." in (project.site_dir / "fr" / "gpu" / "h100-sxm" / "index.html").read_text(encoding="utf-8")
    assert not [p.name for p in project.root.iterdir() if p.name.startswith(".site-")], "leftovers"


def test_a_site_folder_that_is_a_symlink_is_published_through(tmp_path: Path):
    """site/ linked to a deploy folder: builds write into the folder, and the link stays."""
    root = copy_project(tmp_path / "project")
    deploy = tmp_path / "deploy" / "www"
    deploy.mkdir(parents=True)
    os.symlink(deploy, root / "site")
    assert run_build(root, "--no-search").returncode == 0
    assert (root / "site").is_symlink() and (deploy / "fr" / "index.html").is_file()
    _edit_one_page(root)
    assert run_build(root, "--no-search").returncode == 0
    assert (root / "site").is_symlink()
    assert "One more sentence." in (deploy / "en" / "llm-training" / "index.html").read_text(encoding="utf-8")
    shutil.rmtree(root / ".build-cache")
    assert run_build(root, "--no-search").returncode == 0  # a full build swaps the deploy folder's content
    assert (root / "site").is_symlink() and (deploy / "fr" / "index.html").is_file()
    assert not [p.name for p in deploy.parent.iterdir() if p.name.startswith(".www-")], "leftovers"


def test_a_drawing_is_linked_beside_its_page_and_a_folder_is_made_only_where_missing(tmp_path: Path):
    from gpuguide.build.publish import complete_and_swap

    cache, staging, site = tmp_path / "cards", tmp_path / "staging", tmp_path / "site"
    cache.mkdir()
    (cache / "a.png").write_bytes(b"card a")
    (cache / "b.png").write_bytes(b"card b")
    (staging / "fr" / "page").mkdir(parents=True)
    (staging / "fr" / "page" / "index.html").write_text("<p>page</p>")
    complete_and_swap(staging, site, [], {}, {}, None,
                      {"fr/page/og.png": str(cache / "a.png"), "og.png": str(cache / "a.png"),
                       "en/other/og.png": str(cache / "b.png")})  # a folder no page made
    assert (site / "fr" / "page" / "og.png").read_bytes() == b"card a"
    assert (site / "og.png").read_bytes() == b"card a" and (site / "en" / "other" / "og.png").read_bytes() == b"card b"
    assert os.path.samefile(site / "fr" / "page" / "og.png", cache / "a.png")  # linked, not copied
    (tmp_path / "staging2").mkdir()
    with pytest.raises(FileNotFoundError, match="gone.png"):  # a drawing gone from the cache is not published as nothing
        complete_and_swap(tmp_path / "staging2", tmp_path / "site2", [], {}, {}, None,
                          {"fr/og.png": str(cache / "gone.png")})
