"""The command line as a publisher uses it: sub-commands and their options, usage errors (exit 2),
one summary line with the right plurals, any working folder, ``translations --stamp``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuguide.commands.cli import main
from sites import ROOT, build_cli, edit


@pytest.mark.parametrize("args", [["publish-everything"], ["build", "--port", "9000"], ["serve", "--port", "70000"],
                                  ["check", "--no-search", "--stamp", "x"], ["translations", "--no-search"]])
def test_options_that_do_not_apply_are_usage_errors(args: list[str], tiny: Path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--root", str(tiny)])
    assert exit_.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["build", "check", "serve", "translations"])
def test_each_command_has_its_own_help(command: str, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    assert f"usage: build.py {command}" in capsys.readouterr().out


def test_a_folder_that_is_no_project_is_a_usage_error(tmp_path: Path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--root", str(tmp_path)])
    assert exit_.value.code == 2
    assert "is not a site project" in capsys.readouterr().err


def test_one_summary_line_with_the_page_count_and_right_plurals(tiny: Path):
    result = build_cli(tiny, "--no-search")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    pages = len(list((tiny / "site").rglob("*.html")))
    assert len(lines) == 1 and lines[0].startswith(f"built {pages} pages in ")
    assert lines[0].endswith(f"({pages} rendered, 0 unchanged; 0 warnings)")
    again = build_cli(tiny, "--no-search")
    assert again.stdout.startswith(f"nothing changed since the last build: {pages} pages in site/ (0 warnings)")
    edit(tiny / "content" / "fr" / "entrainement.md", "Entraîner demande", "Entraîner exige")
    once = build_cli(tiny, "--no-search")  # the English translation is now older than its source
    assert f"built {pages} pages in " in once.stdout and "; 1 warning)" in once.stdout, once.stdout


def test_build_py_works_from_any_folder(tiny: Path, tmp_path: Path):
    shutil.copy(ROOT / "build.py", tiny / "build.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([sys.executable, str(tiny / "build.py"), "--no-search"], cwd=elsewhere,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tiny / "site" / "fr" / "index.html").is_file() and not (elsewhere / "site").exists()


@pytest.mark.parametrize("stamp", ['translated_from:\n  "0123abcd0123"\n', 'translated_from: >-\n  0123abcd0123\n'])
def test_stamp_replaces_a_value_written_on_several_lines(tiny: Path, stamp: str):
    page = tiny / "content" / "en" / "training.md"
    text = page.read_text(encoding="utf-8")
    start = text.index("translated_from:")
    end = text.index("\n", start) + 1
    page.write_text(text[:start] + stamp + text[end:], encoding="utf-8")
    result = build_cli(tiny, "translations", "--stamp", str(page))
    assert result.returncode == 0, result.stderr
    stamped = page.read_text(encoding="utf-8")
    assert stamped.count("translated_from") == 1 and "0123abcd0123" not in stamped
    assert build_cli(tiny, "check", "--strict").returncode == 0  # still valid, and up to date


def test_stamp_after_a_translation_key_written_as_a_block(tiny: Path):
    page = tiny / "content" / "en" / "training.md"
    text = page.read_text(encoding="utf-8")
    start = text.index("translated_from:")
    end = text.index("\n", start) + 1
    text = text[:start] + text[end:]
    page.write_text(text.replace("translation_key: use-case/llm-training", "translation_key: >-\n  use-case/llm-training"),
                    encoding="utf-8")
    result = build_cli(tiny, "translations", "--stamp", str(page))
    assert result.returncode == 0, result.stderr
    assert build_cli(tiny, "check", "--strict").returncode == 0


def test_progress_on_a_terminal_shows_the_pages_then_the_cards_each_ending_its_line():
    import io

    from gpuguide.commands.cli import progress_printer

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert progress_printer(io.StringIO()) is None  # a log or a pipe: nothing
    terminal = Terminal()
    show = progress_printer(terminal)
    assert show is not None
    for done in range(1, 21):
        show(done, 20)
    show(64, 100, "drawing cards")
    show(100, 100, "drawing cards")
    assert terminal.getvalue() == ("\rrendering 10/20\rrendering 20/20\n"
                                   "\rdrawing cards 64/100\rdrawing cards 100/100\n")


@pytest.mark.parametrize("command", ["build", "check"])
def test_a_build_is_left_to_the_exit_only_when_the_process_ends_right_after(command: str, tiny: Path,
                                                                             monkeypatch, capsys):
    """``build.py`` leaves by ``os._exit``: its build's memory goes back at once. Run in a process that
    goes on (a test, the dev server), a build keeps nothing once it has returned."""
    from gpuguide import collector

    monkeypatch.setattr(collector, "_LEFT", [])
    argv = [command, "--root", str(tiny), *(["--no-search"] if command == "build" else [])]
    assert main(argv) == 0
    assert collector._LEFT == []
    edit(tiny / "content" / "fr" / "entrainement.md", "Entraîner demande", "Entraîner exige")  # not a no-change build
    assert main(argv, then_exit=True) == 0
    assert [type(kept).__name__ for kept in collector._LEFT] == ["_Build"]
    assert capsys.readouterr().out.count("\n") == 2
