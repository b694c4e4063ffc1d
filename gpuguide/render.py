"""Rendering pages to HTML: the Jinja2 environment and the context each layout receives.

Autoescape is on and undefined variables are errors (``StrictUndefined``). Templates get UI
strings through ``ui("key")``; numbers are already formatted by ``tables``/``formatting``.
"""

from __future__ import annotations

import json
import posixpath
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from babel.dates import format_date
from markupsafe import Markup

from . import formatting, sizing
from .content import Library, Page
from .datasets import Dataset
from .errors import Problems
from .markdown import render_body, render_inline
from .shortcodes import ShortcodeContext
from .strings import MissingUiString, ui_text
from .tables import build_table

ASSETS = ("style.css",)


def relative_url(from_url: str, to_url: str) -> str:
    """Link from the page at ``from_url`` to ``to_url`` (both site-absolute), as a relative URL.

    Relative links keep the site browsable from disk (``file://``) and from any base path.

    >>> relative_url("/fr/entrainement-llm/", "/en/llm-training/")
    '../../en/llm-training/'
    >>> relative_url("/", "/assets/style.css")
    'assets/style.css'
    """
    fragment = ""
    if "#" in to_url:
        to_url, fragment = to_url.split("#", 1)
        fragment = "#" + fragment
    target = posixpath.relpath(to_url, posixpath.dirname(from_url) or "/")
    if to_url.endswith("/") and target != ".":
        target += "/"
    elif target == ".":
        target = "./"
    return target + fragment


def json_ld(data: Any) -> Markup:
    """Serialise data for a ``<script type="application/ld+json">``: no value can close the script.

    ``<``, ``>`` and ``&`` are written as JSON escapes, which parse to the same string.

    >>> str(json_ld({"a": "</script><b>"}))
    '{"a":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(text)


def make_environment(templates_dir: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env


@dataclass(frozen=True)
class Link:
    label: str
    url: str | None  # None: the page does not exist (yet); shown as plain text, never a dead link
    lang: str | None = None
    description: str | None = None


class PageRenderer:
    """Renders every page of the library with one Jinja environment."""

    def __init__(self, dataset: Dataset, library: Library, templates_dir: Path, problems: Problems):
        self.dataset = dataset
        self.library = library
        self.templates_dir = templates_dir
        self.problems = problems
        self.env = make_environment(templates_dir)

    def url_of(self, translation_key: str, lang: str) -> str | None:
        page = self.library.translations.get(translation_key, {}).get(lang)
        return page.url if page is not None and not page.meta.draft else None

    def render(self, page: Page) -> str | None:
        """The page's HTML, or None after reporting a problem in its content or in a template."""
        try:
            context = self.context(page)
            template = self.env.get_template(f"{page.meta.layout}.html")
            return template.render(context)
        except MissingUiString as exc:
            self.problems.error(self.dataset.files.get(f"ui/{exc.lang}", Path("data/ui")), 1, 1,
                                f"missing UI string `{exc.key}`", f"add `{exc.key}: …` to its `strings:`")
        except jinja2.TemplateSyntaxError as exc:
            self.problems.error(Path(exc.filename or self.templates_dir), exc.lineno, 1,
                                f"template syntax error: {exc.message}")
        except jinja2.TemplateError as exc:
            path, line = self._template_position()
            self.problems.error(path, line, 1, f"template error: {exc}",
                                f"while rendering {page.source.as_posix()}")
        return None

    def _template_position(self) -> tuple[Path, int]:
        """The template file and line of the exception being handled (Jinja rewrites tracebacks)."""
        frames = traceback.extract_tb(sys.exc_info()[2])
        root = self.templates_dir.resolve()
        for frame in reversed(frames):
            if frame.filename and Path(frame.filename).resolve().is_relative_to(root):
                return Path(frame.filename), frame.lineno or 1
        return self.templates_dir, 1

    def context(self, page: Page) -> dict[str, Any]:
        lang = page.lang
        locale = self.dataset.config.languages[lang]
        ui = ui_text(self.dataset.strings, lang)
        md_env: dict[str, Any] = {
            "shortcodes": ShortcodeContext(self.dataset, lang, ui),
            "table_label": ui("table_region_label"),
        }
        body = render_body(page.body, page.source, page.body_line, self.problems, md_env)

        def url(target: str) -> str:
            return relative_url(page.url, target)

        alternates = [
            Link(self.dataset.strings[other]["language_name"], other_page.url, other)
            for other in self.dataset.config.languages
            if other != lang and (other_page := self.library.translation(page, other)) is not None
        ]
        context: dict[str, Any] = {
            "page": page,
            "meta": page.meta,
            "lang": lang,
            "ui": ui,
            "url": url,
            "site_name": self.dataset.config.site_name,
            "stylesheet": url("/assets/style.css"),
            "alternates": alternates,
            "intro_html": Markup(body.intro_html),
            "main_html": Markup(body.main_html),
            "faq": [(item.question, Markup(item.answer_html)) for item in body.faq],
            "faq_json_ld": json_ld(self._faq_schema(body.faq)) if body.faq else None,
        }
        if page.meta.layout == "use_case":
            context.update(self._use_case_context(page, ui, locale, md_env))
        return context

    def _use_case_context(self, page: Page, ui: Any, locale: str, md_env: dict) -> dict[str, Any]:
        meta = page.meta
        assert meta.table is not None and meta.short_name is not None
        table = build_table(meta.table.gpus, meta.table.columns, self.dataset, page.lang, ui)
        note_html = ""
        if meta.table_note:
            pos = page.front_matter.position(("table_note",))
            note_html = render_inline(meta.table_note, page.source, pos.line, self.problems, md_env)
        others = [
            Link(other.meta.title, None if other.meta.draft else other.url, description=other.meta.summary)
            for other in self.library.use_case_pages(page.lang, self.dataset.use_cases)
            if other.meta.use_case != meta.use_case
        ]
        return {
            "table": table,
            "table_caption": ui("suitable_gpus", use_case=meta.short_name),
            "table_note_html": Markup(note_html),
            "prices_as_of": format_date(self.dataset.prices_as_of, format="long", locale=locale),
            "catalogue": Link(ui("all_gpu_models"), self.url_of("catalogue", page.lang)),
            "compare_heading": ui("compare_gpus", use_case=meta.short_name),
            "comparisons": [],
            "other_use_cases": others,
        }

    @staticmethod
    def _faq_schema(faq: list) -> dict[str, Any]:
        return {
            "@context": "https://schema.org",
            "@type": "FAQPage",
            "mainEntity": [
                {"@type": "Question", "name": item.question,
                 "acceptedAnswer": {"@type": "Answer", "text": item.answer_text}}
                for item in faq
            ],
        }
