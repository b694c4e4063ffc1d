"""Pages and their front matter: a slug never leaves site/; any front matter is a page or a problem."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuguide.structure.pages import Page, PageMeta, Slug
from gpuguide.errors import Problems
from gpuguide.structure.schema import validate
from gpuguide.structure.yaml_documents import split_front_matter

SLUG_PATTERN = PageMeta.model_fields["slug"].metadata[0].pattern
slug_adapter = pydantic.TypeAdapter(Slug)
SITE = Path("/srv/project/site")


def _meta(**fields) -> dict:
    return {"title": "T", "description": "D", "slug": "x", "translation_key": "k", "layout": "guide", **fields}


@given(st.from_regex(SLUG_PATTERN, fullmatch=True))
def test_every_accepted_slug_maps_inside_site(slug: str):
    meta = PageMeta.model_validate(_meta(slug=slug))
    for lang in ("fr", "en"):
        page = Page.from_text(Path("content") / lang / "x.md", lang, meta, None, "", 0, 1)
        target = (SITE / page.output_path).resolve()
        assert target.is_relative_to(SITE) and target.name == "index.html"
        assert page.url.startswith(f"/{lang}/") and ".." not in page.url


@given(st.text(), st.text())
def test_any_slug_with_dot_dot_or_a_leading_slash_is_rejected(before: str, after: str):
    for slug in (f"{before}..{after}", f"/{before}"):
        with pytest.raises(pydantic.ValidationError):
            slug_adapter.validate_python(slug)


@pytest.mark.parametrize("slug", ["../evil", "/abs", "a/../../b", "a//b", "A", "é"])
def test_slugs_that_could_escape_or_surprise_are_errors(slug: str):
    with pytest.raises(pydantic.ValidationError):
        slug_adapter.validate_python(slug)


yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(),
                         st.dates(), st.lists(st.text(), max_size=3))


def _page_or_problem(text: str) -> None:
    problems = Problems(Path.cwd())
    path = Path("content/fr/page.md")
    parts = split_front_matter(text, path, problems)
    meta = validate(PageMeta, parts.front_matter, path, problems) if parts is not None else None
    if meta is None:
        assert problems.errors, "rejected without saying why"
        assert all(p.path == "content/fr/page.md" and p.line >= 1 for p in problems.errors)
    else:
        assert isinstance(meta.title, str) and meta.title


@settings(max_examples=200)
@given(yaml_scalars)
def test_any_yaml_value_as_title_is_a_page_or_a_problem(title):
    front = yaml.safe_dump(_meta(title=title), allow_unicode=True)
    _page_or_problem(f"---\n{front}---\nBody\n")


@settings(max_examples=300)
@given(st.text())
def test_any_text_written_after_title_is_a_page_or_a_problem(title: str):
    """Whatever an editor types after ``title:`` — quotes, colons, tabs, ``---`` — never crashes."""
    _page_or_problem(f"---\ntitle: {title}\ndescription: D\nslug: x\ntranslation_key: k\nlayout: guide\n---\nBody\n")


def test_many_files_parsed_on_every_core_load_as_they_do_one_by_one(tmp_path: Path):
    """A first build of a big site parses front matter in worker processes: same pages, same
    problems (file and line) as parsing in order."""
    from gpuguide.structure.loading import PARALLEL_MIN_FILES, ContentCache, load_library

    content = tmp_path / "content"
    (content / "en").mkdir(parents=True)
    for number in range(PARALLEL_MIN_FILES + 20):
        (content / "en" / f"page-{number:04d}.md").write_text(
            f'---\ntitle: "Page {number}"\ndescription: "About {number}."\nslug: p/{number}\n'
            f"translation_key: p/{number}\nlayout: guide\n---\nBody of page {number}.\n", encoding="utf-8")
    broken = content / "en" / "page-0123.md"
    broken.write_text(broken.read_text(encoding="utf-8").replace("layout: guide", "layout: gide"), encoding="utf-8")

    def load(parallel: bool) -> tuple[list[tuple], list[str]]:
        problems = Problems(tmp_path)
        library = load_library(content, None, problems, ContentCache(), parallel=parallel)
        pages = [(page.source, page.meta.title, page.body, page.body_line) for page in library.pages]
        return pages, [str(problem) for problem in problems.items]

    in_workers, serial = load(True), load(False)
    assert in_workers == serial
    assert len(in_workers[0]) == PARALLEL_MIN_FILES + 19
    assert any("page-0123.md:6:" in problem and "layout" in problem for problem in in_workers[1]), in_workers[1]
