"""The README's examples are true: its page example builds, its link examples resolve, its
commands run. Each is read out of README.md itself, so an edit of the README is tested as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from sites import ROOT, build, build_cli, copy_project

README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The README's text under the heading ``title``, up to the next heading (outside code blocks)."""
    lines = README[README.index(f"\n### {title}\n") + 1:].split("\n")
    fenced, kept = False, [lines[0]]
    for line in lines[1:]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,3} ", line):
            break
        kept.append(line)
    return "\n".join(kept)


def page_example() -> str:
    return re.search(r"```markdown\n(.*?)```", section("Writing a page"), re.S).group(1)


def link_examples() -> list[tuple[str, str]]:
    paragraph = section("Writing a page").split("Link to another page", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"`\[([^\]]+)\]\(([^)]+)\)`", paragraph)


def commands() -> list[str]:
    """The commands of the publishers' table, as written (``serve`` runs forever: tested apart)."""
    return [command for command in re.findall(r"^\| `(python build\.py[^`]*)`", section("Commands"), re.M)
            if " serve" not in command]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("readme"))


def test_the_readme_has_the_examples_this_file_tests():
    assert "layout: use_case" in page_example()
    assert len(link_examples()) >= 2
    assert {"python build.py", "python build.py check", "python build.py translations"} <= set(commands())


@pytest.mark.slow  # builds the real project
def test_the_page_example_builds_as_the_page_it_describes(project: Path):
    """The example replaces the French LLM-training page (it has that page's key and slug): the site
    builds, and the page shows the example's table, its GPUs in order, and its FAQ."""
    page = project / "content" / "fr" / "entrainement-llm.md"
    original = page.read_text(encoding="utf-8")
    try:
        page.write_text(page_example(), encoding="utf-8")
        build(project)
        soup = BeautifulSoup((project / "site" / "fr" / "entrainement-llm" / "index.html").read_text(encoding="utf-8"),
                             "lxml")
        gpus = re.search(r"gpus: \[([^\]]+)\]", page_example()).group(1).split(", ")
        assert [row["data-gpu"] for row in soup.select("#gpu-table tbody tr")] == gpus
        assert soup.select_one("#faq") is not None and "A question?" in soup.get_text()
    finally:
        page.write_text(original, encoding="utf-8")


@pytest.mark.slow
def test_the_link_examples_resolve_to_the_pages_they_name(project: Path):
    page = project / "content" / "fr" / "reglage-fin.md"
    original = page.read_text(encoding="utf-8")
    try:
        links = " ".join(f"[{text}]({target})" for text, target in link_examples())
        page.write_text(original.rstrip("\n") + f"\n\nVoir aussi : {links}.\n", encoding="utf-8")
        build(project)  # a link to a missing page, file or heading would fail the build
        soup = BeautifulSoup((project / "site" / "fr" / "reglage-fin" / "index.html").read_text(encoding="utf-8"),
                             "lxml")
        hrefs = {a.get_text(): a["href"] for a in soup.find_all("a")}
        for text, target in link_examples():
            anchor = target.partition("#")[2]
            assert hrefs[text].startswith("../entrainement-llm/") and hrefs[text].endswith(f"#{anchor}" if anchor else "/")
    finally:
        page.write_text(original, encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("command", commands())
def test_each_command_of_the_table_runs(project: Path, command: str):
    arguments = command.split()[2:]
    if "--stamp" in arguments:  # the example's file stands for any translation
        arguments[arguments.index("--stamp") + 1] = "content/en/llm-training.md"
    if not arguments or arguments[0] not in ("check", "translations"):
        arguments = [*arguments, "--no-search"]  # the build command: the search index is tested elsewhere
    result = build_cli(project, *arguments)
    assert result.returncode == 0, result.stderr


def test_the_architecture_names_every_module_of_each_stage_and_only_those():
    block = section("Architecture").split("```")[1]
    texts: dict[str, str] = {}
    package = None
    for line in block.splitlines():
        if match := re.match(r"(\w+)/\s+(.*)", line):
            package, line = match.group(1), match.group(2)
        if package is not None and line.strip() != "↓":
            texts[package] = texts.get(package, "") + " " + line
    assert set(texts) == {"commands", "build", "render", "markdown", "figures", "structure"}
    for package, text in texts.items():
        # Module names: the words outside parentheses (which say what a module holds).
        names = set(re.findall(r"\b[a-z_]+\b", re.sub(r"\([^)]*\)", " ", text)))
        modules = {path.stem for path in (ROOT / "gpuguide" / package).glob("*.py") if path.stem != "__init__"}
        assert modules - names == set(), f"{package}/: modules the README does not name"
        assert names - modules <= {"one", "module", "per", "data", "file", "and"}, f"{package}/: no such module"
