"""The orchestration on the tiny site, in process: what a build writes, what check does not, no lost
edit, one build at a time."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from gpuguide.build import pipeline
from gpuguide.build.lock import BuildLock
from gpuguide.build.pipeline import Options, run
from gpuguide.errors import BuildFailed
from gpuguide.project import Project
from sites import build, edit, fingerprint


def test_a_build_writes_every_page_the_root_page_and_the_sitemap(tiny: Path):
    outcome = build(tiny)
    site = tiny / "site"
    pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("index.html"))
    assert outcome.pages == len(pages) + 1  # and /404.html
    assert "index.html" in pages and "fr/index.html" in pages and "en/gpus/big/index.html" in pages
    assert "fr/comparer/big-vs-pcie/index.html" in pages  # a page per pair of GPUs
    assert "fr/guides/premier-guide/index.html" in pages  # the URL follows the content folder
    not_found = (site / "404.html").read_text(encoding="utf-8")  # for servers: every language's 404
    assert 'lang="fr"' in not_found and 'lang="en"' in not_found
    assert (site / "sitemap.xml").is_file() and (site / "robots.txt").is_file()


def test_check_renders_everything_and_writes_nothing(tiny: Path):
    before = fingerprint(tiny)
    outcome = run(Project(tiny), Options(search=False, parallel=False), publish_site=False)
    assert outcome.rendered == outcome.pages > 30
    assert fingerprint(tiny) == before  # not even a cache


def test_nothing_changed_is_said_and_costs_no_rendering(tiny: Path):
    build(tiny)
    again = build(tiny)
    assert again.unchanged and again.rendered == 0


def test_an_edit_saved_while_a_build_reads_is_seen_by_the_next_build(tiny: Path, monkeypatch):
    """The editor saves after the build read the older text: the next build must not say "nothing
    changed" (input states are taken before reading)."""
    build(tiny)
    page = tiny / "content" / "en" / "training.md"
    real_load = pipeline.load

    def load_then_edit(*args, **kwargs):
        site = real_load(*args, **kwargs)
        time.sleep(0.01)  # a later modification time, as a real save would have
        edit(page, "Training takes memory", "Training takes lots of memory")
        return site

    edit(page, "## What matters", "## What really matters")  # something for this build to do
    monkeypatch.setattr(pipeline, "load", load_then_edit)
    build(tiny)
    monkeypatch.setattr(pipeline, "load", real_load)
    html = (tiny / "site" / "en" / "training" / "index.html").read_text(encoding="utf-8")
    assert "lots of memory" not in html  # the build rendered what it had read
    outcome = build(tiny)
    assert not outcome.unchanged
    assert "lots of memory" in (tiny / "site" / "en" / "training" / "index.html").read_text(encoding="utf-8")


def test_a_second_build_waits_for_the_first(tiny: Path):
    messages: list[str] = []
    with BuildLock(tiny):
        second = threading.Thread(target=lambda: run(Project(tiny), Options(search=False, parallel=False),
                                                     on_wait=messages.append))
        second.start()
        time.sleep(0.3)
        assert second.is_alive() and not (tiny / "site").exists()  # still waiting: nothing written
        assert messages and "another build" in messages[0]
    second.join(timeout=60)
    assert (tiny / "site" / "fr" / "index.html").is_file()


def test_the_lock_gives_up_after_its_timeout(tiny: Path):
    with BuildLock(tiny):
        with pytest.raises(TimeoutError, match="another build"):
            with BuildLock(tiny, timeout=0.2):
                pass


def test_an_unchanged_page_linking_to_an_anchor_of_a_rerendered_page_is_checked_again(tiny: Path):
    """A rebuild checks the links of the pages it renders and of the unchanged pages that link to
    an anchor of one of them (a heading's id may have gone); those anchors, only."""
    home = tiny / "content" / "fr" / "index.md"
    guide = tiny / "content" / "fr" / "guides" / "premier-guide.md"
    home.write_text(home.read_text(encoding="utf-8") + "\nVoir [la mémoire](guides/premier-guide.md#memoire-des-modeles).\n",
                    encoding="utf-8")
    build(tiny)
    edit(guide, "Le petit modèle demande", "Le petit modèle, lui, demande")  # the anchor stays
    assert build(tiny).rendered < 10
    before = fingerprint(tiny / "site")
    edit(guide, "## Mémoire des modèles", "## Autre titre")
    with pytest.raises(BuildFailed) as failure:
        build(tiny)
    assert [(p.path, p.message) for p in failure.value.problems if p.severity == "error"] == [
        ("content/fr/index.md", "link to a missing anchor: `guides/premier-guide/#memoire-des-modeles`")]
    assert fingerprint(tiny / "site") == before


def _build_noting_pyyaml(root: Path) -> tuple[int, bool]:
    """``build.py`` as a command runs it, in a fresh process: its status, and whether PyYAML was loaded."""
    import subprocess
    import sys

    code = ("import sys\nfrom gpuguide.commands.cli import main\n"
            "status = main(['--root', sys.argv[1], 'build', '--no-search'])\nprint(status, 'yaml' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    status, loaded = result.stdout.split()[-2:]
    return int(status), loaded == "True"


def test_a_body_edit_is_built_without_loading_pyyaml_and_a_front_matter_edit_with_it(tiny: Path):
    # Every YAML text then comes from the caches: the data's documents, the pages' front matter.
    page = tiny / "content" / "en" / "guides" / "first-guide.md"
    assert _build_noting_pyyaml(tiny) == (0, True)  # the first build parses everything
    time.sleep(0.01)
    edit(page, "A short guide.\n", "A short guide, edited.\n")
    assert _build_noting_pyyaml(tiny) == (0, False)
    shown = (tiny / "site" / "en" / "guides" / "first-guide" / "index.html").read_text(encoding="utf-8")
    assert "A short guide, edited." in shown
    time.sleep(0.01)
    edit(page, 'title: "First guide"', 'title: "The first guide"')
    assert _build_noting_pyyaml(tiny) == (0, True)
    shown = (tiny / "site" / "en" / "guides" / "first-guide" / "index.html").read_text(encoding="utf-8")
    assert "The first guide" in shown
