"""Rendering pages to HTML: the Jinja2 environment and the context each layout receives.

Autoescape is on and undefined variables are errors (``StrictUndefined``). Templates get UI
strings through ``ui("key")``; numbers are already formatted by ``tables``/``formatting``.
"""

from __future__ import annotations

import json
import os
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
from .errors import Problems, did_you_mean
from .markdown import render_body, render_inline
from .shortcodes import ShortcodeContext
from .strings import Language, MissingUiString, UnknownPlaceholder, make_language
from .content import gpu_pairs
from .tables import CATALOGUE_COLUMNS, COLUMNS, SEGMENTS, SPEC_COLUMNS, Cell, Column, Table, build_table

#: Chart geometry, in SVG user units: the drawing is 400 wide and scales to the screen.
CHART_BAR_WIDTH = 290
CHART_ROW_HEIGHT = 46


def relative_url(from_url: str, to_url: str) -> str:
    """Link from the page at ``from_url`` to ``to_url`` (both site-absolute), as a relative URL.

    Relative links keep the site browsable from disk (``file://``) and from any base path.

    >>> relative_url("/fr/entrainement-llm/", "/en/llm-training/")
    '../../en/llm-training/'
    >>> relative_url("/", "/assets/style.css")
    'assets/style.css'
    >>> relative_url("/fr/gpu/h100/", "/fr/gpu/#faq")
    '../#faq'
    """
    # What posixpath.relpath(to_url, dirname(from_url)) gives for site URLs (tests compare the
    # two), without its normalisation of both paths: pages call this a dozen times each.
    path, hash_, fragment = to_url.partition("#")
    here = [part for part in from_url.split("/")[:-1] if part]
    there = [part for part in path.split("/") if part]
    common = 0
    for mine, theirs in zip(here, there):
        if mine != theirs:
            break
        common += 1
    target = "/".join([".."] * (len(here) - common) + there[common:])
    if not target:
        target = "./"
    elif path.endswith("/"):
        target += "/"
    return target + hash_ + fragment


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
        # Each build makes its own environment, so a template never changes during one: without
        # this, every page's get_template would stat its template file again.
        auto_reload=False,
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
        # Output path → {href: line in the Markdown source}: where the link check points editors.
        self.link_lines: dict[str, dict[str, int]] = {}
        self._pages_by_source = {os.path.normpath(page.source): page
                                 for page in library.published if page.record is None}
        self.languages = {code: make_language(code, config.locale, config.typography, dataset.strings)
                          for code, config in dataset.config.languages.items()}

    def source_link(self, page: Page, md_path: str) -> str:
        """The URL, relative to ``page``, of the page written in ``md_path`` (relative to ``page``'s file).

        Raises LookupError with a hint when no published page comes from that file.
        """
        target = self._pages_by_source.get(os.path.normpath(page.source.parent / md_path))
        if target is None:
            candidates = [os.path.relpath(source, page.source.parent).replace(os.sep, "/")
                          for source in self._pages_by_source]
            raise LookupError(did_you_mean(md_path, candidates)
                              or "link to a published page's .md file, relative to this file")
        return relative_url(page.url, target.url)

    def url_of(self, translation_key: str, lang: str) -> str | None:
        """The URL of a published page, or None: templates never link to a page that was not built."""
        page = self.library.find(translation_key, lang)
        return page.url if page is not None else None

    def render(self, page: Page) -> str | None:
        """The page's HTML, or None after reporting a problem in its content or in a template."""
        try:
            context = self.context(page)
            template = self.env.get_template(f"{page.meta.layout}.html")
            return template.render(context)
        except MissingUiString as exc:
            self.problems.error(self.dataset.files.get(f"ui/{exc.lang}", Path("data/ui")), 1, 1,
                                f"missing UI string `{exc.key}`", f"add `{exc.key}: …` to its `strings:`")
        except UnknownPlaceholder as exc:
            self.problems.error(self.dataset.files.get(f"ui/{exc.lang}", Path("data/ui")), 1, 1, str(exc),
                                "use only the placeholders the generator fills for this string")
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
        language = self.languages[lang]
        locale, ui = language.locale, language.ui
        md_env: dict[str, Any] = {
            "shortcodes": ShortcodeContext(self.dataset, language),
            "typography": language.typography,
            "table_label": ui("table_region_label"),
            "table_label_for": lambda heading: ui("table_region_label_for", heading=heading),
            "resolve_source_link": lambda md_path: self.source_link(page, md_path),
            "links": self.link_lines.setdefault(page.output_path, {}),
        }
        body = render_body(page.body, page.source, page.body_line, self.problems, md_env)

        def url(target: str) -> str:
            # The 404 page is served at any address, so its links cannot be relative.
            return target if page.meta.layout == "not_found" else relative_url(page.url, target)

        translations = {other: found for other in self.dataset.config.languages
                        if (found := self.library.translation(page, other)) is not None}
        languages = [Link(self.languages[other].name,
                          translations[other].url if other in translations else None, other)
                     for other in self.dataset.config.languages]
        default = self.dataset.config.default_language
        # hreflang only links real translations: a page alone in its language has none.
        hreflang = [(other, self.absolute(found.url)) for other, found in translations.items()
                    ] if len(translations) > 1 else []
        if hreflang and default in translations:
            hreflang.append(("x-default", self.absolute(translations[default].url)))
        breadcrumbs = self._breadcrumbs(page, ui)
        context: dict[str, Any] = {
            "page": page,
            "meta": page.meta,
            "title": self.typeset(page, "title"),
            "description": self.typeset(page, "description"),
            "lang": lang,
            "language": language,
            "ui": ui,
            "url": url,
            "site_name": self.dataset.config.site_name,
            "stylesheet": url("/assets/style.css"),
            "languages": languages,
            "alternates": [link for link in languages if link.lang != lang and link.url],
            "hreflang": hreflang if page.meta.layout != "not_found" else [],
            "canonical": self.absolute(page.url),
            "og_locale": locale,
            "og_locale_alternates": [self.languages[other].locale for other in translations if other != lang],
            "breadcrumbs": breadcrumbs,
            "breadcrumbs_json_ld": json_ld(self._breadcrumb_schema(breadcrumbs)) if breadcrumbs else None,
            "nav": self._nav(lang, ui),
            "use_case_menu": [link for link in self._use_case_links(lang) if link.url],
            # The header links to the guides' index, never to every guide: a menu of all guides on
            # every page would make the build quadratic in the number of guides.
            "guides_url": self.url_of("guides", lang),
            "search_url": self.url_of("search", lang),
            "methodology": Link(ui("methodology_link"), self.url_of("methodology", lang)),
            "gpu_url": lambda gpu_id: self.url_of(f"gpu/{gpu_id}", lang),
            "intro_html": Markup(body.intro_html),
            "main_html": Markup(body.main_html),
            "faq": [(item.question, Markup(item.answer_html)) for item in body.faq],
            "faq_json_ld": json_ld(self._faq_schema(body.faq)) if body.faq else None,
        }
        extra = getattr(self, f"_context_{page.meta.layout}", None)
        if extra is not None:
            context.update(extra(page, language, md_env))
        return context

    def render_root(self) -> str | None:
        """The site's root page: one link per language, each to that language's home page."""
        languages = []
        for lang in self.dataset.config.languages:
            home = self.library.find("home", lang)
            if home is None:
                continue
            language = self.languages[lang]
            languages.append(Link(language.name, relative_url("/", home.url), lang, language.ui("choose_language")))
        try:
            return self.env.get_template("root.html").render(
                site_name=self.dataset.config.site_name, languages=languages,
                default_language=self.dataset.config.default_language)
        except jinja2.TemplateError as exc:
            path, line = self._template_position()
            self.problems.error(path, line, 1, f"template error: {exc}", "while rendering the root page")
            return None

    def typeset(self, page: Page, field: str) -> str:
        """A text field of a page's front matter, set in its language's typography (French spaces)."""
        text = getattr(page.meta, field) or ""
        return self.languages[page.lang].typography(text)

    def absolute(self, site_url: str) -> str:
        """The public address of a site-absolute URL, from ``base_url`` in data/site.yaml."""
        return self.dataset.config.base_url.rstrip("/") + site_url

    #: Where a page sits: the translation keys of its parents, home first.
    PARENTS = {"home": (), "not_found": (), "gpu": ("home", "catalogue"), "comparison": ("home", "comparisons"),
               "guide": ("home", "guides")}

    def _breadcrumbs(self, page: Page, ui: Any) -> list[Link]:
        """Home › section › page, linking only to pages that exist; empty on the home page."""
        parents = self.PARENTS.get(page.meta.layout, ("home",))
        if page.meta.layout in ("home", "not_found"):
            return []
        trail = []
        for key in parents:
            parent = self.library.find(key, page.lang)
            if parent is not None:
                trail.append(Link(ui("nav_home") if key == "home" else self.typeset(parent, "title"), parent.url))
        return [*trail, Link(self.typeset(page, "title"), None)]

    def _breadcrumb_schema(self, breadcrumbs: list[Link]) -> dict[str, Any]:
        items = []
        for position, crumb in enumerate(breadcrumbs, start=1):
            item: dict[str, Any] = {"@type": "ListItem", "position": position, "name": crumb.label}
            if crumb.url:
                item["item"] = self.absolute(crumb.url)
            items.append(item)
        return {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": items}

    def _nav(self, lang: str, ui: Any) -> list[Link]:
        """The header's links: only to pages that exist in this language."""
        links = [Link(ui("nav_home"), self.url_of("home", lang)),
                 Link(ui("nav_catalogue"), self.url_of("catalogue", lang)),
                 Link(ui("nav_comparisons"), self.url_of("comparisons", lang))]
        return [link for link in links if link.url]

    def comparison_url(self, first: str, second: str, lang: str) -> str | None:
        """The comparison page of two GPUs, whichever order they are given in."""
        order = list(self.dataset.gpus)
        a, b = sorted((first, second), key=order.index)
        return self.url_of(f"comparison/{a}-vs-{b}", lang)

    def _comparison_links(self, gpu_ids: list[str], lang: str) -> list[Link]:
        order = list(self.dataset.gpus)
        ids = sorted(set(gpu_ids), key=order.index)
        links = []
        for a, b in gpu_pairs(ids):
            target = self.comparison_url(a, b, lang)
            if target:
                gpus = self.dataset.gpus
                links.append(Link(f"{gpus[a].model} – {gpus[b].model}", target))
        return links

    def _use_case_links(self, lang: str, exclude: str | None = None) -> list[Link]:
        return [
            Link(self.typeset(other, "title"), None if other.meta.draft else other.url,
                 description=self.typeset(other, "summary"))
            for other in self.library.use_case_pages(lang, self.dataset.use_cases)
            if other.meta.use_case != exclude
        ]

    def _context_use_case(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        meta = page.meta
        ui = language.ui
        assert meta.table is not None and meta.short_name is not None
        table = build_table(meta.table.gpus, meta.table.columns, self.dataset, language)
        note_html = ""
        if meta.table_note:
            pos = page.front_matter.position(("table_note",))
            note_html = render_inline(meta.table_note, page.source, pos.line, self.problems, md_env)
        return {
            "table": table,
            "chart": self._chart(page, table, language) if meta.chart else None,
            "table_caption": ui("suitable_gpus", use_case=self.typeset(page, "short_name")),
            "table_note_html": Markup(note_html),
            "prices_as_of": format_date(self.dataset.prices_as_of, format="long", locale=language.locale),
            "catalogue": Link(ui("all_gpu_models"), self.url_of("catalogue", page.lang)),
            "compare_heading": ui("compare_gpus", use_case=self.typeset(page, "short_name")),
            "comparisons": self._comparison_links(meta.table.gpus, page.lang),
            "other_use_cases": self._use_case_links(page.lang, exclude=meta.use_case),
        }

    def _chart(self, page: Page, table: Table, language: Language) -> dict[str, Any]:
        """A horizontal bar chart of one column, longest bar first, each bar labelled with the GPU's price.

        Drawn at build time as SVG (see partials/chart.svg.html); bars for values not published are
        left out and named in the text alternative.
        """
        ui = language.ui
        column = table.column_ids.index(page.meta.chart)
        header = table.headers[column]
        price = COLUMNS["price"]
        bars, missing = [], []
        for row in table.rows:
            cell = row.cells[column]
            if cell.sort_value is None or cell.sort_value <= 0:
                missing.append(row.gpu.model)
                continue
            price_value = price.value(row.gpu, self.dataset.price(row.gpu.id))
            price_text = ui(price.missing_key) if price_value is None else ui(
                "price_per_hour", price=formatting.usd(price_value, language.locale))
            bars.append({"label": row.gpu.model, "value": cell.sort_value, "text": cell.text, "price": price_text})
        bars.sort(key=lambda bar: -bar["value"])
        largest = max((bar["value"] for bar in bars), default=1)
        for index, bar in enumerate(bars):
            bar["width"] = round(CHART_BAR_WIDTH * bar["value"] / largest, 1)
            bar["y"] = index * CHART_ROW_HEIGHT
        title = ui("chart_title", figure=header)
        description = "; ".join(ui("chart_bar", gpu=bar["label"], figure=bar["text"], price=bar["price"])
                                for bar in bars)
        if missing:
            description += ". " + ui("chart_missing", gpus=", ".join(missing))
        return {"title": title, "description": description, "bars": bars,
                "height": max(len(bars), 1) * CHART_ROW_HEIGHT, "bar_width": CHART_BAR_WIDTH}

    def _context_home(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        ui = language.ui
        return {
            "use_cases": [link for link in self._use_case_links(page.lang) if link.url],
            "catalogue": Link(ui("all_gpu_models"), self.url_of("catalogue", page.lang)),
            "comparisons_index": Link(ui("nav_comparisons"), self.url_of("comparisons", page.lang)),
            "guides": [Link(self.typeset(guide, "title"), guide.url, description=self.typeset(guide, "description"))
                       for guide in self.library.by_layout(page.lang, "guide")],
        }

    def _context_guides(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        return {"guides": [Link(self.typeset(guide, "title"), guide.url, description=self.typeset(guide, "description"))
                           for guide in self.library.by_layout(page.lang, "guide")]}

    def _context_catalogue(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        groups = []
        for segment in SEGMENTS:
            ids = [gpu_id for gpu_id, gpu in self.dataset.gpus.items() if gpu.segment == segment]
            if ids:
                table = build_table(ids, list(CATALOGUE_COLUMNS), self.dataset, language)
                groups.append((segment, language.ui(f"segment_{segment.replace('-', '_')}"), table))
        return {"groups": groups,
                "prices_as_of": format_date(self.dataset.prices_as_of, format="long", locale=language.locale)}

    def _use_case_figures(self, gpu_ids: list[str], page: Page, language: Language) -> list[dict[str, Any]]:
        """For each use-case page of the language: its figures (sizing columns) for these GPUs."""
        sections = []
        for use_case in self.library.use_case_pages(page.lang, self.dataset.use_cases):
            if use_case.meta.draft or use_case.meta.table is None:
                continue
            columns = [c for c in use_case.meta.table.columns if not (isinstance(c, str) and c in SPEC_COLUMNS)]
            if not columns:
                continue
            table = build_table(gpu_ids, columns, self.dataset, language)
            sections.append({"title": self.typeset(use_case, "title"), "short_name": self.typeset(use_case, "short_name"),
                             "url": use_case.url, "table": table})
        return sections

    def _context_gpu(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        gpu = page.record
        ui = language.ui
        specs = build_table([gpu.id], ["segment", *CATALOGUE_COLUMNS], self.dataset, language)
        others = [other for other in self.dataset.gpus if other != gpu.id]
        return {
            "gpu": gpu,
            "specs": list(zip(specs.headers, specs.column_ids, specs.rows[0].cells)),
            "use_case_figures": self._use_case_figures([gpu.id], page, language),
            "comparisons": [Link(self.dataset.gpus[other].model, self.comparison_url(gpu.id, other, page.lang))
                            for other in others if self.comparison_url(gpu.id, other, page.lang)],
            "catalogue": Link(ui("all_gpu_models"), self.url_of("catalogue", page.lang)),
            "prices_as_of": format_date(self.dataset.prices_as_of, format="long", locale=language.locale),
        }

    def _context_comparison(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        a, b = page.record
        specs = build_table([a.id, b.id], ["segment", *CATALOGUE_COLUMNS], self.dataset, language)
        figures = self._use_case_figures([a.id, b.id], page, language)
        return {
            "a": a, "b": b,
            "spec_rows": side_by_side(specs, language),
            "use_case_rows": [(section, side_by_side(section["table"], language)) for section in figures],
            "prices_as_of": format_date(self.dataset.prices_as_of, format="long", locale=language.locale),
        }

    def _context_comparisons(self, page: Page, language: Language, md_env: dict) -> dict[str, Any]:
        groups = []
        ids = list(self.dataset.gpus)
        for index, gpu_id in enumerate(ids):
            links = [Link(self.dataset.gpus[other].model, self.comparison_url(gpu_id, other, page.lang))
                     for other in ids[index + 1:]]
            links = [link for link in links if link.url]
            if links:
                groups.append((self.dataset.gpus[gpu_id], links))
        return {"groups": groups, "pair_count": sum(len(links) for _, links in groups)}

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


@dataclass(frozen=True)
class ComparisonRow:
    """One criterion of a two-GPU comparison: both cells, their ratio and which is better."""

    label: str
    column_id: str
    first: Cell
    second: Cell
    ratio: str  # "× 2,5", "identique", or "" when either figure is missing or not a number
    better: int | None  # 0: the first GPU's value is better, 1: the second's, None: equal or not comparable


def side_by_side(table: Table, language: Language) -> list[ComparisonRow]:
    """The rows of a two-GPU table, with ratios of the EXACT values (never of rounded figures).

    A ratio needs two published numbers: a figure "not published" or "not supported" has none.
    """
    first, second = table.rows
    rows = []
    for index, (header, column) in enumerate(zip(table.headers, table.columns)):
        cell_a, cell_b = first.cells[index], second.cells[index]
        ratio, better = "", None
        value = sizing.spec_ratio(cell_a.number, cell_b.number) if column.comparable else None
        if value is not None:
            shown = formatting.ratio(float(value), language.locale)
            ratio = (language.ui("ratio_same") if value == 1 else language.ui("ratio_nearly_same")
                     if shown.startswith("≈") else language.ui("ratio", value=shown))
            if value != 1 and column.higher_is_better is not None:
                better = 0 if (value > 1) == column.higher_is_better else 1
        elif column.higher_is_better is True and isinstance(cell_a.value, bool) and isinstance(cell_b.value, bool):
            better = None if cell_a.value == cell_b.value else (0 if cell_a.value else 1)
        rows.append(ComparisonRow(header, column.id, cell_a, cell_b, ratio, better))
    return rows
