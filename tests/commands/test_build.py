"""``build.py build`` in process (``commands.build.run``) on the tiny site: what it prints on stdout and
stderr, its exit code, what it writes into ``site/`` (with and without the search index), warnings
counted and shown again when nothing changed, and a failing build leaving ``site/`` as it was.

The summary line's wording and plurals through the real command line are in test_cli.py; here the
command's own behaviour is checked without a subprocess."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

import pytest
from sites import edit, fingerprint

from gpuguide.build.lock import BuildLock
from gpuguide.commands import build
from gpuguide.errors import BuildFailed
from gpuguide.project import Project

EN_PAGE = "content/en/training.md"
FR_PAGE = "content/fr/entrainement.md"


def run(root: Path, strict: bool = False, no_search: bool = True) -> int:
    return build.run(Project(root), argparse.Namespace(strict=strict, no_search=no_search, then_exit=False))


def html_files(root: Path) -> int:
    return len(list((root / "site").rglob("*.html")))


def stale_line(root: Path) -> str:
    """Where the stale-translation warning points: the `translated_from` value of the English page."""
    lines = (root / EN_PAGE).read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.startswith("translated_from:"))
    return f"{EN_PAGE}:{number}:{len('translated_from: ') + 1}: warning: this translation is older than its source"


def make_stale(root: Path) -> None:
    # A change to the French body: its English translation is now older than its source.
    edit(root / FR_PAGE, "Entraîner demande", "Entraîner exige")


def test_a_first_build_publishes_every_page_and_says_how_many(tiny: Path, capsys):
    assert run(tiny) == 0
    out, err = capsys.readouterr()
    pages = html_files(tiny)  # every page, the root language chooser and /404.html
    assert pages > 30
    assert out.startswith(f"built {pages} pages in ") and out.count("\n") == 1
    assert f"into site/ ({pages} rendered, 0 unchanged; 0 warnings)" in out
    # Not a terminal: no "rendering n/N" progress, and nothing else to say on stderr.
    assert err == ""
    assert (tiny / "site" / "fr" / "entrainement" / "index.html").is_file()
    assert not (tiny / "site" / "pagefind").exists()  # --no-search: no index


def test_without_no_search_the_search_index_is_published(tiny: Path):
    assert run(tiny, no_search=False) == 0
    assert (tiny / "site" / "pagefind" / "pagefind.js").is_file()


def test_a_build_after_a_no_search_build_adds_the_search_index(tiny: Path, capsys):
    assert run(tiny, no_search=True) == 0
    assert run(tiny, no_search=False) == 0  # another option: not "nothing changed"
    assert capsys.readouterr().out.splitlines()[-1].startswith("built ")
    assert (tiny / "site" / "pagefind" / "pagefind.js").is_file()


def test_one_edited_page_is_the_only_one_rendered(tiny: Path, capsys):
    assert run(tiny) == 0
    pages = html_files(tiny)
    before = fingerprint(tiny / "site")
    capsys.readouterr()
    # The English body is not a source: no translation turns stale, only this page shows the text.
    edit(tiny / EN_PAGE, "Training takes memory", "Training needs memory")
    assert run(tiny) == 0
    out = capsys.readouterr().out
    # That page, plus the two site-wide pages rendered every time (root chooser, /404.html).
    assert f"(3 rendered, {pages - 3} unchanged; 0 warnings)" in out, out
    after = fingerprint(tiny / "site")
    assert {path for path in after if after[path] != before.get(path)} == {"en/training/index.html"}
    assert "Training needs memory" in (tiny / "site" / "en" / "training" / "index.html").read_text(encoding="utf-8")


def test_warnings_are_printed_counted_and_shown_again_when_nothing_changed(tiny: Path, capsys):
    make_stale(tiny)
    assert run(tiny) == 0  # a warning does not fail a build
    out, err = capsys.readouterr()
    assert stale_line(tiny) in err
    assert out.rstrip().endswith("; 1 warning)")
    pages = html_files(tiny)
    # Nothing changed: nothing is loaded, but the publisher is still told about the warning.
    assert run(tiny) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"nothing changed since the last build: {pages} pages in site/ (1 warning), checked in ")
    assert stale_line(tiny) in err


def test_strict_makes_a_warning_fail_the_build_and_leaves_site_alone(tiny: Path, capsys):
    assert run(tiny) == 0
    before = fingerprint(tiny / "site")
    capsys.readouterr()
    make_stale(tiny)
    with pytest.raises(BuildFailed) as failed:  # the command line turns it into exit 1
        run(tiny, strict=True)
    assert [p.severity for p in failed.value.problems] == ["warning"]
    assert str(failed.value.problems[0]).startswith(stale_line(tiny))
    assert capsys.readouterr().out == ""  # no summary: nothing was built
    assert fingerprint(tiny / "site") == before


def test_an_error_fails_the_build_at_its_line_and_publishes_nothing(tiny: Path, capsys):
    page = tiny / FR_PAGE
    page.write_text(page.read_text(encoding="utf-8") + "\nVoir [la page](absente.md).\n", encoding="utf-8")
    line = len(page.read_text(encoding="utf-8").splitlines())  # the link is on the last line
    with pytest.raises(BuildFailed) as failed:
        run(tiny)
    assert any(p.path == FR_PAGE and p.line == line and p.severity == "error" and "absente.md" in p.message
               for p in failed.value.problems), failed.value.problems
    assert capsys.readouterr().out == ""
    assert not (tiny / "site").exists()


def test_a_build_waits_for_the_one_running_and_says_so(tiny: Path, capsys):
    lock = BuildLock(tiny)
    lock.__enter__()  # another build of this project holds the lock...
    release = threading.Timer(0.3, lock.__exit__)  # ...and finishes a moment later
    release.start()
    try:
        assert run(tiny) == 0
    finally:
        release.join()
        lock.__exit__()
    out, err = capsys.readouterr()
    assert f"another build of {tiny} is running; waiting for it to finish" in err
    assert out.startswith("built ")
