"""``build.py translations`` in process (``commands.translations.run``) on the tiny site: a line per
translation and per missing one, the four counts, ``--strict`` failing on warnings, and ``--stamp``
with paths relative to the working folder or to the project, or refused with exit 1.

Stale translations and the stamp's rewriting of the front matter are in
tests/structure/test_translations.py (through the command line); here the command's own listing,
counts, exit codes and path handling are checked without a subprocess."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from gpuguide.commands import translations
from gpuguide.project import Project

EN_PAGE = "content/en/training.md"
FR_PAGE = "content/fr/entrainement.md"


def run(root: Path, strict: bool = False, stamp: Path | None = None) -> int:
    return translations.run(Project(root), argparse.Namespace(strict=strict, stamp=stamp))


def source_keys(root: Path) -> dict[str, str]:
    """Each French page's translation key, by its path: what the report is about, read from the files."""
    keys = {}
    for path in sorted((root / "content" / "fr").rglob("*.md")):
        match = re.search(r"^translation_key: (\S+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
        assert match, path
        keys[path.relative_to(root).as_posix()] = match.group(1)
    return keys


def drop_stamp(root: Path, relative: str) -> str:
    """Remove the page's ``translated_from`` line; returns the value it had."""
    page = root / relative
    lines = page.read_text(encoding="utf-8").splitlines(keepends=True)
    line = next(line for line in lines if line.startswith("translated_from:"))
    page.write_text("".join(other for other in lines if other is not line), encoding="utf-8")
    return line.split(":", 1)[1].strip().strip('"')


def test_every_translation_is_listed_with_its_source_and_counted(tiny: Path, capsys):
    assert run(tiny) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    keys = source_keys(tiny)
    # One line per French page (every one is translated, and every stamp is current), then the counts.
    assert len(lines) == len(keys) + 1
    assert f"{EN_PAGE}: up to date (source {FR_PAGE})" in lines
    assert {line.rsplit("(source ", 1)[1].rstrip(")") for line in lines[:-1]} == set(keys)
    assert all(": up to date (source content/fr/" in line and line.startswith("content/en/") for line in lines[:-1])
    assert lines[-1] == f"translations: {len(keys)} up to date, 0 stale, 0 unknown freshness, 0 missing"
    assert err == ""


def test_a_missing_translation_is_named_by_its_source_and_key(tiny: Path, capsys):
    (tiny / "content" / "en" / "guides" / "first-guide.md").unlink()  # a guide need not exist in every language
    keys = source_keys(tiny)
    assert run(tiny) == 0  # missing is a warning, not an error
    out, err = capsys.readouterr()
    source = "content/fr/guides/premier-guide.md"
    assert f"{source}: no `en` translation (translation_key `{keys[source]}`)" in out.splitlines()
    assert out.splitlines()[-1] == f"translations: {len(keys) - 1} up to date, 0 stale, 0 unknown freshness, 1 missing"
    assert f"{source}:" in err and "warning: no `en` translation" in err


def test_unknown_freshness_is_listed_warned_and_fails_only_when_strict(tiny: Path, capsys):
    drop_stamp(tiny, EN_PAGE)
    keys = source_keys(tiny)
    assert run(tiny) == 0
    out, err = capsys.readouterr()
    assert f"{EN_PAGE}: unknown freshness (source {FR_PAGE})" in out.splitlines()
    assert out.splitlines()[-1] == f"translations: {len(keys) - 1} up to date, 0 stale, 1 unknown freshness, 0 missing"
    assert f"{EN_PAGE}:" in err and "warning: unknown freshness" in err
    assert f"--stamp {EN_PAGE}" in err  # the warning names the command that fixes it
    assert run(tiny, strict=True) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1].startswith("translations: ")  # the report is still printed
    assert err.rstrip().endswith("translations failed: 1 warning (--strict)")


def test_strict_passes_when_everything_is_up_to_date(tiny: Path, capsys):
    assert run(tiny, strict=True) == 0
    assert "failed" not in capsys.readouterr().err


def test_stamp_with_a_path_relative_to_the_project_from_another_folder(tiny: Path, tmp_path: Path, capsys,
                                                                    monkeypatch: pytest.MonkeyPatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # content/en/training.md is not here: it is taken from the project
    original = (tiny / EN_PAGE).read_text(encoding="utf-8")
    value = drop_stamp(tiny, EN_PAGE)
    assert run(tiny, stamp=Path(EN_PAGE)) == 0
    out = capsys.readouterr().out
    # The fixture's stamp was current: the one written back is the same, and so is the file.
    assert out == f"stamped {EN_PAGE}: translated_from: {value}\n"
    assert (tiny / EN_PAGE).read_text(encoding="utf-8") == original
    assert not (elsewhere / "content").exists()


def test_stamp_with_a_path_relative_to_the_working_folder(tiny: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tiny / "content")  # an editor in content/ types en/training.md
    value = drop_stamp(tiny, EN_PAGE)
    assert run(tiny, stamp=Path("en/training.md")) == 0
    assert capsys.readouterr().out == f"stamped {EN_PAGE}: translated_from: {value}\n"
    assert f'translated_from: "{value}"' in (tiny / EN_PAGE).read_text(encoding="utf-8")
    assert run(tiny, strict=True) == 0  # up to date again


@pytest.mark.parametrize("target", ["data/site.yaml", "content/en/absent.md"])
def test_stamping_what_is_not_a_page_is_refused(tiny: Path, capsys, target: str):
    before = (tiny / "data" / "site.yaml").read_bytes()
    assert run(tiny, stamp=tiny / target) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"translations: {tiny / target}: not a page under content/\n"
    assert (tiny / "data" / "site.yaml").read_bytes() == before
    assert not (tiny / "content" / "en" / "absent.md").exists()  # refused: no file made either


def test_a_page_copied_from_another_language_is_not_reported_fresh(tiny: Path, capsys):
    """A stamp names the translation's language: the stamp of an up-to-date page of one language,
    copied into a page of another (a copied translation not yet translated), does not match there."""
    from gpuguide.build.pipeline import Options, load
    from gpuguide.structure.translation_status import stamp_for

    site = load(Project(tiny), Options(parallel=False))
    source = next(page for page in site.library.pages if page.source == tiny / FR_PAGE)
    assert stamp_for(source, "en") != stamp_for(source, "de")
    page = tiny / EN_PAGE
    text = page.read_text(encoding="utf-8")
    assert f'translated_from: "{stamp_for(source, "en")}"' in text  # fresh as committed
    page.write_text(re.sub(r'translated_from: "[0-9a-f]+"', f'translated_from: "{stamp_for(source, "de")}"', text),
                    encoding="utf-8")
    assert run(tiny, strict=True) == 1
    assert f"{EN_PAGE}: stale" in capsys.readouterr().out
