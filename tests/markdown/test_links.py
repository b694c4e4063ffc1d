"""``gpuguide.markdown.links``: external links get ``rel="noopener"``; a link to a page's Markdown file
becomes that page's URL (its anchor kept); a link to a file that is no published page is an error at
its file and line; every link is recorded in ``env["links"]`` with its line for the link check."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from gpuguide.errors import Problems
from gpuguide.markdown.links import links_plugin

ROOT = Path("/project")
SOURCE = ROOT / "content" / "fr" / "guides" / "page.md"
BODY_LINE = 5  # the file line of the body's first line (after the front matter)

#: The published pages the resolver knows, by path relative to SOURCE's folder → URL relative to the page.
PAGES = {"entrainement.md": "../entrainement/", "../index.md": "../../", "entraînement-llm.md": "../entrainement-llm/"}


def _resolve(md_path: str) -> str:
    if md_path in PAGES:
        return PAGES[md_path]
    raise LookupError("did you mean `entrainement.md`?" if md_path.startswith("entrai") else None)


def _render(text: str, **env: object) -> tuple[BeautifulSoup, dict, Problems]:
    md = MarkdownIt("commonmark", {"html": False}).enable("table").use(links_plugin)
    problems = Problems(root=ROOT)
    full_env: dict = {"source": SOURCE, "line": BODY_LINE, "problems": problems, "resolve_source_link": _resolve}
    full_env.update(env)
    soup = BeautifulSoup(md.render(text, full_env), "html.parser")
    return soup, full_env, problems


@pytest.mark.parametrize("href", ["https://example.com/h100", "http://example.com", "//cdn.example.com/x.js",
                                  "https://example.com/notes.md"])
def test_external_links_get_noopener(href: str) -> None:
    soup, _, problems = _render(f"[x]({href})")
    link = soup.find("a")
    assert link["href"] == href and link["rel"] == ["noopener"]
    assert not problems.items  # an external .md is not a page of this site: never resolved


@pytest.mark.parametrize("href", ["mailto:team@example.com", "#memory", "../gpu/", "/fr/gpu/", "/fr/page.md",
                                  "notes.txt", "page.md.bak"])
def test_internal_and_other_links_are_left_as_written(href: str) -> None:
    soup, env, problems = _render(f"[x]({href})")
    link = soup.find("a")
    assert link["href"] == href and not link.has_attr("rel")
    assert not problems.items and env["links"] == {href: BODY_LINE}


def test_autolinks_are_external_links_too() -> None:
    soup, _, _ = _render("See <https://example.com/a>.")
    assert soup.find("a")["rel"] == ["noopener"]


def test_a_link_to_a_page_file_becomes_its_url_with_its_anchor() -> None:
    soup, env, problems = _render("[a](entrainement.md) [b](entrainement.md#memoire) [c](../index.md)")
    assert [a["href"] for a in soup.find_all("a")] == ["../entrainement/", "../entrainement/#memoire", "../../"]
    assert not any(a.has_attr("rel") for a in soup.find_all("a"))
    assert not problems.items
    # The link check gets the URLs readers follow, with their lines.
    assert env["links"] == {"../entrainement/": BODY_LINE, "../entrainement/#memoire": BODY_LINE, "../../": BODY_LINE}


def test_a_file_name_with_accents_reaches_the_resolver_decoded() -> None:
    # markdown-it percent-encodes the destination; the resolver gets the file name as written.
    soup, _, problems = _render("[llm](entraînement-llm.md#cout)")
    assert soup.find("a")["href"] == "../entrainement-llm/#cout" and not problems.items


def test_a_link_to_a_file_that_is_no_page_is_an_error_at_its_line_with_the_resolver_hint() -> None:
    soup, env, problems = _render("Intro.\n\nFirst line\nsee [training](entrainment.md#x).\n")
    assert [str(problem) for problem in problems.items] == [
        (f"content/fr/guides/page.md:{BODY_LINE + 3}:1: error: link to a Markdown file that is not a "
        "published page: `entrainment.md` (did you mean `entrainement.md`?)")]
    # Left as written, and recorded with line 0: reported already, the link check skips it.
    assert soup.find("a")["href"] == "entrainment.md#x"
    assert env["links"] == {"entrainment.md#x": 0}


def test_without_a_hint_from_the_resolver_the_error_says_what_to_link_to() -> None:
    _, _, problems = _render("[x](missing.md)")
    (problem,) = problems.items
    assert problem.severity == "error" and problem.line == BODY_LINE
    assert "`missing.md`" in problem.message and ".md file, relative to this file" in problem.hint


def test_without_a_resolver_every_page_link_is_an_error() -> None:
    _, _, problems = _render("[x](entrainement.md)", resolve_source_link=None)
    assert len(problems.errors) == 1 and "`entrainement.md`" in problems.errors[0].message


def test_without_problems_to_report_to_a_page_link_is_left_as_written() -> None:
    md = MarkdownIt("commonmark").use(links_plugin)
    env: dict = {}
    soup = BeautifulSoup(md.render("[x](missing.md)", env), "html.parser")
    assert soup.find("a")["href"] == "missing.md" and env["links"] == {"missing.md": 0}


def test_each_link_is_recorded_at_its_own_line() -> None:
    text = ("[intro](https://a.example)\n"          # 0
            "\n"                                    # 1
            "- item\n"                              # 2
            "- [item](https://b.example)\n"         # 3
            "\n"                                    # 4
            "## [Heading](https://c.example)\n"     # 5
            "\n"                                    # 6
            "First line\n"                          # 7
            "second [para](https://d.example)\n"    # 8
            "third  \n"                             # 9: a hard break
            "fourth [para](https://e.example)\n"    # 10
            "\n"                                    # 11
            "| a | b |\n"                           # 12
            "|---|---|\n"                           # 13
            "| 1 | 2 |\n"                           # 14
            "| [cell](https://f.example) | 3 |\n"   # 15
            "\n"                                    # 16
            "> quoted\n"                            # 17
            "> [quote](https://g.example)\n")       # 18
    _, env, _ = _render(text)
    assert env["links"] == {"https://a.example": BODY_LINE, "https://b.example": BODY_LINE + 3,
                            "https://c.example": BODY_LINE + 5, "https://d.example": BODY_LINE + 8,
                            "https://e.example": BODY_LINE + 10, "https://f.example": BODY_LINE + 15,
                            "https://g.example": BODY_LINE + 18}


def test_a_link_used_twice_keeps_its_first_line() -> None:
    _, env, _ = _render("[a](https://x.example)\n\n[b](https://y.example)\n\n[c](https://x.example)\n")
    assert env["links"] == {"https://x.example": BODY_LINE, "https://y.example": BODY_LINE + 2}


def test_links_already_collected_for_the_page_are_kept() -> None:
    # The page's env gathers the links of every part rendered (body, table note): none is lost.
    _, env, _ = _render("[b](https://b.example)", links={"https://a.example": 3})
    assert env["links"] == {"https://a.example": 3, "https://b.example": BODY_LINE}


@pytest.mark.parametrize("before", ["`some\ncode`", "![a long\ndescription](chart.png)"])
def test_a_line_break_inside_a_code_span_or_image_still_counts(before: str) -> None:
    # The link is on the second line of the paragraph.
    _, env, _ = _render(f"{before} then [x](https://x.example)\n")
    assert env["links"] == {"https://x.example": BODY_LINE + 1}


def test_an_external_link_with_an_upper_case_scheme_gets_noopener() -> None:
    soup, _, _ = _render("[x](HTTPS://EXAMPLE.COM/)")
    assert soup.find("a")["rel"] == ["noopener"]
