"""``build.py check`` in process (``commands.check.run``) on the tiny site: every page rendered and its
links checked, one summary line, warnings on stderr, errors and ``--strict`` failing, and nothing
written, not even a cache, whether it passes or fails."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from sites import build, edit, fingerprint

from gpuguide.commands import check
from gpuguide.errors import BuildFailed
from gpuguide.project import Project

EN_PAGE = "content/en/training.md"
FR_PAGE = "content/fr/entrainement.md"


def run(root: Path, strict: bool = False) -> int:
    return check.run(Project(root), argparse.Namespace(strict=strict, then_exit=False))


def test_check_renders_every_page_says_so_and_writes_nothing(tiny: Path, capsys):
    before = fingerprint(tiny)
    assert run(tiny) == 0
    out, err = capsys.readouterr()
    assert fingerprint(tiny) == before  # no site/, no .build-cache/
    assert not (tiny / "site").exists() and not (tiny / ".build-cache").exists()
    # Every page a build would publish: count them by building the same project afterwards.
    build(tiny)
    pages = len(list((tiny / "site").rglob("*.html")))
    assert out == f"check: {pages} pages rendered, links checked, no errors, 0 warnings; nothing written\n"
    assert err == ""  # not a terminal: no progress line


def test_check_after_a_build_checks_again_and_leaves_the_site_alone(tiny: Path, capsys):
    build(tiny)
    site = fingerprint(tiny / "site")
    cache = fingerprint(tiny / ".build-cache")
    pages = len(list((tiny / "site").rglob("*.html")))
    assert run(tiny) == 0
    out = capsys.readouterr().out
    # Unlike build, check never answers "nothing changed": it renders everything again.
    assert out.startswith(f"check: {pages} pages rendered") and "nothing changed" not in out
    assert fingerprint(tiny / "site") == site and fingerprint(tiny / ".build-cache") == cache


def test_a_warning_is_printed_and_counted_but_passes(tiny: Path, capsys):
    edit(tiny / FR_PAGE, "Entraîner demande", "Entraîner exige")  # the English translation is now stale
    assert run(tiny) == 0
    out, err = capsys.readouterr()
    assert out.rstrip().endswith(", 1 warning; nothing written")
    warning = [line for line in err.splitlines() if ": warning: " in line]
    assert len(warning) == 1 and warning[0].startswith(f"{EN_PAGE}:")
    assert "this translation is older than its source content/fr/entrainement.md" in warning[0]
    assert not (tiny / "site").exists()


def test_strict_turns_the_warning_into_a_failure(tiny: Path, capsys):
    edit(tiny / FR_PAGE, "Entraîner demande", "Entraîner exige")
    before = fingerprint(tiny)
    with pytest.raises(BuildFailed) as failed:  # the command line prints them and exits 1
        run(tiny, strict=True)
    assert [(p.path, p.severity) for p in failed.value.problems] == [(EN_PAGE, "warning")]
    assert capsys.readouterr().out == ""  # no "no errors" summary
    assert fingerprint(tiny) == before


def test_a_broken_link_fails_with_its_file_and_line(tiny: Path, capsys):
    page = tiny / FR_PAGE
    text = page.read_text(encoding="utf-8")
    page.write_text(text + "\nVoir [la page](absente.md).\n", encoding="utf-8")
    line = len(text.splitlines()) + 2  # after the old last line and a blank line
    with pytest.raises(BuildFailed) as failed:
        run(tiny)
    broken = [p for p in failed.value.problems if p.severity == "error"]
    assert [(p.path, p.line) for p in broken] == [(FR_PAGE, line)]
    assert "absente.md" in broken[0].message
    assert capsys.readouterr().out == ""
    assert not (tiny / "site").exists() and not (tiny / ".build-cache").exists()


def test_a_data_error_fails_before_rendering(tiny: Path, capsys):
    site_yaml = tiny / "data" / "site.yaml"
    text = site_yaml.read_text(encoding="utf-8")
    default = next(line for line in text.splitlines() if line.startswith("default_language:"))
    line = text.splitlines().index(default) + 1
    site_yaml.write_text(text.replace(default, "default_language: de"), encoding="utf-8")  # not a language
    with pytest.raises(BuildFailed) as failed:
        run(tiny)
    assert any(p.path == "data/site.yaml" and p.line == line and p.severity == "error"
               for p in failed.value.problems), failed.value.problems
    assert capsys.readouterr().out == ""
