"""Rendering one page to HTML: its Markdown body, the context every page gets, its layout's context,
its template; and the root page. Problems (a UI string, a template, a shortcode) are reported with
their file and line, never raised.

Autoescape is on and undefined variables are errors (``StrictUndefined``). Templates get UI
strings through ``ui("key")``; numbers come formatted from ``figures``.
"""

from __future__ import annotations

import json
import functools
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from gpuguide.errors import Problems, did_you_mean
from gpuguide.markdown.parser import faq_schema, render_body, render_inline
from gpuguide.figures.registry import ShortcodeContext
from gpuguide.render.block_table import block_table, side_by_side_table
from gpuguide.render.cards import CARD_FILE, Card, shorten
from gpuguide.render.contexts import CONTEXTS
from gpuguide.render.known_links import KnownLinks
from gpuguide.render.environment import TemplateReferences, TemplateRefused, json_ld, make_environment, relative_url
from gpuguide.structure.project_files import RefusedFile, read_project_file
from gpuguide.render.page_input import PageInput, numeric_columns
from gpuguide.render.program_store import FOLDER as PROGRAMS, ProgramStore
from gpuguide.render import shell
from gpuguide.render.reads import NotedList, Read, Reads, tracked_dataset, tracked_language
from gpuguide.render.site_view import SiteView
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language, MissingUiString, UnknownPlaceholder
from gpuguide.structure.library import Library
from gpuguide.structure.pages import Page, head_title


@dataclass(frozen=True)
class PageOutput:
    """One page rendered: its HTML (None when it failed: its problems are reported), what it read
    of the data and UI strings, and the Markdown line of each link written in its source."""

    html: str | None
    reads: frozenset[Read]
    link_lines: dict[str, int]
    card: Card | None = None  # what its sharing card shows (``og:image``)
    menu_spans: shell.Spans = ()  # where the use-case menu's fragments are in ``html``
    known: KnownLinks | None = None  # the ids and link addresses it wrote (for the link check)


class PageRenderer:
    """Renders pages of the library with one Jinja environment and one site view per language."""

    def __init__(self, dataset: Dataset, library: Library, languages: dict[str, Language], templates_dir: Path,
                 problems: Problems, cache_dir: Path | None = None, code_version: str = ""):
        """``cache_dir``: the build cache (compiled templates, the planner's programs; None: nothing
        kept, as in ``check``), ``code_version`` the generator's (``build.fingerprints``)."""
        template_cache = cache_dir / "templates" if cache_dir is not None else None
        self.dataset, self.library, self.templates_dir, self.problems = dataset, library, templates_dir, problems
        self.env = make_environment(templates_dir, template_cache)
        self._references = TemplateReferences(self.env, template_cache)
        #: Every compiled template's source and the templates it refers to (``compile_templates``).
        self.template_sources: dict[str, str] = {}
        self.template_references: dict[str, list[str]] = {}
        self.card_cache: Path | None = None  # where sharing cards are drawn (None: not drawn, as in `check`)
        self.programs = ProgramStore(cache_dir / PROGRAMS if cache_dir is not None else None, code_version)
        self.programs.prune(dataset)
        self.views = {code: SiteView(language, languages, library, dataset) for code, language in languages.items()}
        self._pages_by_source = {os.path.normpath(page.source_name): page
                                 for page in library.published if page.subject is None}

    def render(self, page: Page) -> PageOutput:
        """The page's HTML, or None after reporting a problem in its content or in a template."""
        reads, link_lines, known = Reads(), dict[str, int](), KnownLinks()
        html: str | None = None
        card: Card | None = None
        spans: shell.Spans = ()
        try:
            context = (self._redirect_context(page, reads, known) if page.redirects
                       else self.context(page, reads, link_lines, known))
            card = context["card"] if self.dataset.config.sharing_cards == "per page" else None
            menu_links: list[str] = []
            html, filled = shell.fill(self.env.get_template(f"{page.meta.layout}.html").render(context),
                                      ("", "") if page.redirects else self.menu_fragments(page, menu_links))
            if filled != ():  # the template shows the menu
                known.hrefs.extend(menu_links)
            if filled is None:  # the menu cannot be put in again: the page depends on its titles
                self.views[page.lang].use_cases(reads)
            spans = filled or ()
        except MissingUiString as exc:
            line = self.dataset.ui_lines.get(exc.lang, {}).get("", 1)
            self.problems.error(self._ui_file(exc.lang), line, 1, f"missing UI string `{exc.key}`",
                                f"add `{exc.key}: …` to its `strings:`")
        except UnknownPlaceholder as exc:
            line = self.dataset.ui_lines.get(exc.lang, {}).get(exc.key, 1)
            self.problems.error(self._ui_file(exc.lang), line, 1, str(exc),
                                "use only the placeholders the generator fills for this string")
        except jinja2.TemplateSyntaxError as exc:
            self.problems.error(Path(exc.filename or self.templates_dir), exc.lineno, 1,
                                f"template syntax error: {exc.message}", "fix the template's syntax")
        except jinja2.TemplateError as exc:
            path, line = self.template_position()
            self.problems.error(path, line, 1, f"template error: {exc}", f"while rendering {page.source.as_posix()}")
        view = self.views[page.lang]
        return PageOutput(html, frozenset(reads.keys | view.reads.keys), link_lines, card if html is not None else None,
                          spans, known)

    def menu_fragments(self, page: Page, noted: list[str] | None = None) -> tuple[str, str]:
        """The use-case menu's fragments as ``page`` shows them (``render.shell``); each link's
        address, as the page writes it, appended to ``noted``."""
        view = self.views[page.lang]
        absolute = page.meta.layout == "not_found"  # served at any address: absolute links

        def address(target: str) -> str:
            written = target if absolute else relative_url(page.url, target)
            if noted is not None:
                noted.append(written)
            return written

        return shell.fragments(view.menu, page.url, address)

    def compile_templates(self, layouts: set[str]) -> None:
        """Compile every layout's template and the templates it includes, before any page renders:
        a syntax error or a missing include is reported once, at its template's line."""
        pending, seen = sorted(f"{layout}.html" for layout in layouts), set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            try:
                source = self.env.loader.get_source(self.env, name)[0] if self.env.loader else ""
                references = self._references.of(name, source)
                self.template_sources[name], self.template_references[name] = source, references
                pending.extend(references)
                self.env.get_template(name)
            except jinja2.TemplateSyntaxError as exc:
                self.problems.error(Path(exc.filename or self.templates_dir / name), exc.lineno, 1,
                                    f"template syntax error: {exc.message}", "fix the template's syntax")
            except TemplateRefused as exc:
                self.problems.error(exc.refused.path, 1, 1, exc.refused.reason, exc.refused.hint)
            except jinja2.TemplateNotFound as exc:
                missing = str(exc.name)
                user, line = self._includer(missing, seen)
                self.problems.error(user, line, 1, f"template not found: `{missing}`",
                                    "check the name in the include or extends tag, or restore the file")
        self._references.save()

    def _includer(self, missing: str, names: set[str]) -> tuple[Path, int]:
        """The template (and line) that names ``missing``, for the error message."""
        for name in sorted(names):
            path = self.templates_dir / name
            try:
                lines = read_project_file(path, self.templates_dir.parent).decode("utf-8", "replace").splitlines()
            except (FileNotFoundError, RefusedFile):
                continue
            for number, text in enumerate(lines, 1):
                if missing in text:
                    return path, number
        return self.templates_dir / missing, 1

    def _ui_file(self, lang: str) -> Path:
        return self.dataset.files.get(f"ui/{lang}", Path("data/ui"))

    def template_position(self) -> tuple[Path, int]:
        """The template file and line of the exception being handled (Jinja rewrites tracebacks)."""
        frames = traceback.extract_tb(sys.exc_info()[2])
        root = self.templates_dir.resolve()
        for frame in reversed(frames):
            if frame.filename and Path(frame.filename).resolve().is_relative_to(root):
                return Path(frame.filename), frame.lineno or 1
        return self.templates_dir, 1

    def source_link(self, page: Page, md_path: str) -> str:
        """The URL, relative to ``page``, of the page written in ``md_path`` (relative to ``page``'s file).

        Raises LookupError with a hint when no published page comes from that file.
        """
        # By the file's name, as ``_pages_by_source`` keeps them: no ``Path`` made (six links a page).
        target = self._pages_by_source.get(os.path.normpath(os.path.join(os.path.dirname(page.source_name), md_path)))
        if target is None:
            candidates = [os.path.relpath(source, page.source.parent).replace(os.sep, "/")
                          for source in self._pages_by_source]
            raise LookupError(did_you_mean(md_path, candidates)
                              or "link to a published page's .md file, relative to this file")
        return relative_url(page.url, target.url)

    def _redirect_context(self, page: Page, reads: Reads, known: KnownLinks) -> dict[str, Any]:
        """A redirect's context, all of it from its layout's (``gpu_contexts.pair_redirect``):
        none of the site's layout; its addresses and ids noted in ``known``."""
        view = self.views[page.lang]
        context = CONTEXTS[page.meta.layout](PageInput(page, view, tracked_dataset(self.dataset, reads),
                                                       tracked_language(view.language, reads), _no_markdown, reads))
        url = context["url"]
        return {**context, "url": lambda target: known.href(url(target)), "link": known.href, "anchor": known.anchor}

    def context(self, page: Page, reads: Reads, link_lines: dict[str, int],
                known: KnownLinks | None = None) -> dict[str, Any]:
        """Everything ``page``'s template receives; the ids and addresses it writes noted in ``known``."""
        known = known if known is not None else KnownLinks()
        view = self.views[page.lang]
        dataset = tracked_dataset(self.dataset, reads)
        language = tracked_language(view.language, reads)
        ui = language.ui
        md_env: dict[str, Any] = {
            "shortcodes": ShortcodeContext(dataset, language),
            "figure": lambda call: view.figure(call, reads),
            "typography": language.typography,
            "scroll_hint": ui("scroll_hint"),
            "page_title": view.typeset(page, "title", reads),
            "resolve_source_link": lambda md_path: self.source_link(page, md_path),
            # A table cell that links to a generated page (a GPU's, a model's): relative to this page.
            "page_url": lambda layout, subject_id: (relative_url(page.url, target)
                                                    if (target := view.page_url(layout, subject_id)) else None),
            "links": link_lines,
            "known": known,
        }
        body = render_body(page.body, page.source, page.body_line, self.problems, md_env)

        def inline_markdown(text: str, field_path: tuple[str, ...]) -> str:
            line = page.front_matter.position(field_path).line
            front = page.front_matter
            # The field's lines in the file: a problem in the text is reported at its own line.
            lines = (front.text or "").splitlines()[line - 1 - front.line_offset:]
            return render_inline(text, page.source, line, self.problems, md_env, lines)

        def data_url(target: str) -> str:
            """An address a script reads (a ``data-`` attribute): no link of the page's own."""
            # The 404 page is served at any address, so its links cannot be relative.
            return target if page.meta.layout == "not_found" else relative_url(page.url, target)

        def url(target: str) -> str:
            """A link's address (``href``, ``src``), noted for the link check."""
            return known.href(data_url(target))

        def ui_forms(key: str) -> str:
            """A UI string's plural forms, typeset, as JSON: a script picks one with Intl.PluralRules."""
            text = language.strings[key]
            forms = {"other": text} if isinstance(text, str) else dict(text)
            return json.dumps({category: language.typography(form) for category, form in forms.items()},
                              ensure_ascii=False)

        switcher = view.switcher(page)
        bid_url = functools.partial(dataset.bid_url, language.code)
        breadcrumbs = view.breadcrumbs(page, reads)
        context: dict[str, Any] = {
            "page": page,
            "meta": page.meta,
            "title": view.typeset(page, "title", reads),
            "head_title": head_title(view.typeset(page, "title", reads), self.dataset.config.site_name),
            "indexable": page.indexable,
            "description": view.typeset(page, "description", reads),
            "lang": page.lang,
            "ui": ui,
            "ui_forms": ui_forms,
            "url": url,
            "data_url": data_url,
            "link": known.href,  # an address written as it is (``#main``)
            "anchor": known.anchor,
            "site_name": self.dataset.config.site_name,
            "stylesheet": url("/assets/style.css"),
            "languages": switcher,
            "alternates": [link for link in switcher if link.lang != page.lang and link.url],
            "hreflang": view.hreflang(page),
            "canonical": view.absolute(page.url),
            "og_locale": language.locale,
            "og_locale_alternates": [view.languages[link.lang].locale for link in switcher
                                     if link.lang and link.lang != page.lang and link.url],
            "breadcrumbs": breadcrumbs,
            "breadcrumbs_json_ld": view.breadcrumb_schema(breadcrumbs) if breadcrumbs else None,
            "nav": view.nav,
            # Where the use-case links go: put in after rendering (``render.shell``). A template
            # that lists them itself (one written before the marks) shows their titles: noted.
            "use_case_menu_mark": shell.MARKS if view.menu else None,
            "use_case_menu": NotedList(view.menu, functools.partial(view.use_cases, reads)),
            # The header links to the guides' index, never to every guide: a menu of all guides on
            # every page would make the build quadratic in the number of guides.
            "guides_url": view.url_of("guides"),
            "search_url": view.url_of("search"),
            "methodology": view.methodology,
            "calls_to_action": view.calls_to_action,
            "gpu_url": view.gpu_url,
            "bid_url": bid_url,
            "page_url": view.page_url,
            "block_table": functools.partial(block_table, ui=ui, page_url=view.page_url, url=url, anchor=known.anchor),
            "side_by_side_table": functools.partial(side_by_side_table, ui=ui, bid_url=bid_url, anchor=known.anchor),
            "numeric_columns": numeric_columns,
            "intro_html": Markup(body.intro_html),
            "main_html": Markup(body.main_html),
            "faq": [(item.question, Markup(item.answer_html)) for item in body.faq],
            "faq_json_ld": json_ld(faq_schema(body.faq)) if body.faq else None,
            # "On this page": the sections of the Markdown body, and the FAQ (a layout adds its own).
            "toc": [*body.sections, *([("faq", ui("toc_faq"))] if body.faq else [])],
        }
        given = PageInput(page, view, dataset, language, inline_markdown, reads, self.programs, self.programs.gpu)
        context.update(CONTEXTS[page.meta.layout](given))
        # The sharing card: the title and the layout's key figures, or the description; or the
        # site's one card (published with the root page), which a publisher may prefer.
        if self.dataset.config.sharing_cards == "per page":
            context["card"] = Card(self.dataset.config.site_name, context["title"],
                                   tuple(context.get("card_lines") or (shorten(context["description"]),)))
            context["card_url"] = view.absolute(page.url) + CARD_FILE
        else:
            context["card"] = self.site_card(reads)
            context["card_url"] = self.dataset.config.base_url.rstrip("/") + "/" + CARD_FILE
        if page.meta.layout == "use_case":  # the table above the body, the links below it
            context["toc"] = [("suitable-gpus", context["table_caption"]), *body.sections,
                              ("compare-gpus", context["compare_heading"]), *context["toc"][len(body.sections):],
                              ("other-use-cases", ui("other_use_cases"))]
        return context

    def site_card(self, reads: Reads) -> Card:
        """The site's card: its name, every home page's title and the default language's description
        (noted into ``reads``: a page that shows the card's text depends on them)."""
        homes = [(view, page) for code, view in self.views.items()
                 if (page := self.library.reserved("home", code)) is not None and view.url_of("home") is not None]
        config = self.dataset.config
        default = next(((view, page) for view, page in homes if page.lang == config.default_language),
                       homes[0] if homes else None)
        description = default[0].typeset(default[1], "description", reads) if default else ""
        return Card(config.site_name, " · ".join(view.typeset(page, "title", reads) for view, page in homes),
                    (shorten(description),))


def _no_markdown(text: str, field_path: tuple[str, ...]) -> str:
    raise AssertionError("a redirect shows no Markdown")  # its layout's context asks for none
