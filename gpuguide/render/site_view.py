"""One language's view of the site, built once per build: the links every page shows, the URLs of
the pages the renderer links to (by layout, or by the GPU a page is about), the language switcher,
hreflang alternates and breadcrumbs.

Everything the view reads of the data and the UI strings is noted in its ``reads``: every page
depends on them, since every page shows the header, the menus and the switcher. What a page shows of
another page's front matter (a title, a summary) is noted in that page's own reads (``typeset``),
except the use-case menu's titles: every page shows them, so the menu is a fragment of the page
(``shell``) put in again when they change, not a reason to render every page again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gpuguide.figures.registry import ShortcodeContext
from gpuguide.markdown.shortcodes import evaluate
from gpuguide.render import shell
from gpuguide.render.environment import Link, json_ld
from gpuguide.render.reads import PAGE_TEXTS, Reads, tracked_dataset, tracked_language
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language
from gpuguide.structure.page_types import LAYOUTS
from gpuguide.structure.library import Library
from gpuguide.structure.pages import Page


#: The GPUs the "compare two GPUs" form offers, in the data's order (``picker_options``): written
#: once per build at the site's root. At 100 GPUs the options made a third of a comparison page's
#: HTML (13.5 of 36.5 KB), in each of its 9,900 pages, and of what its link check parsed.
PICKER_OPTIONS = "compare-gpus.json"


def picker_options(dataset: Dataset) -> str:
    """``PICKER_OPTIONS``'s text: ``{"gpus": [[id, name], …]}``, which the form's script reads
    (``templates/assets/compare.js``). GPU names are the same in every language."""
    return json.dumps({"gpus": [[gpu_id, gpu.model] for gpu_id, gpu in dataset.gpus.items()]},
                      ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass
class SiteView:
    """The site as the pages of one language see it."""

    language: Language
    languages: dict[str, Language]
    library: Library
    dataset: Dataset
    reads: Reads = field(default_factory=Reads)
    #: Rows of figures by (GPU, columns), made once per build and language, with what making them
    #: read (see ``page_input.gpu_rows``): a GPU's figures appear on every comparison it is part of.
    row_cache: dict[tuple[str, tuple[Any, ...]], tuple[Any, frozenset[tuple[str, str]]]] = field(default_factory=dict)
    #: Each inline shortcode's text by its call, made once per build and language (``figure``).
    figure_cache: dict[str, tuple[str, frozenset[tuple[str, str]]]] = field(default_factory=dict)

    def figure(self, call: str, reads: Reads) -> str:
        """The text of the inline shortcode ``call`` (``gpu_figure gpu=h100-sxm column=memory``),
        evaluated once per build and language and reused by every page that quotes it (the sizing
        library's work is the same each time); what evaluating it read is noted into ``reads``, so
        the page still depends on exactly that. Raises ``ShortcodeError`` as ``evaluate`` does: a
        call that fails is not kept."""
        found = self.figure_cache.get(call)
        if found is None:
            made = Reads()
            text = evaluate(call, ShortcodeContext(tracked_dataset(self.dataset, made), tracked_language(self.language, made)))
            found = self.figure_cache[call] = (text, frozenset(made.keys))
        reads.keys.update(found[1])
        return found[0]

    def __post_init__(self) -> None:
        dataset, ui = tracked_dataset(self.dataset, self.reads), tracked_language(self.language, self.reads).ui
        lang = self.language.code
        self.reserved_urls = {layout: (page.url if (page := self.library.reserved(layout, lang)) else None)
                              for layout, rule in LAYOUTS.items() if rule.required and not rule.generates}
        self.home_label = ui("nav_home")
        self.nav = [link for link in (Link(ui("nav_home"), self.url_of("home")),
                                      Link(ui("nav_catalogue"), self.url_of("catalogue")),
                                      Link(ui("nav_comparisons"), self.url_of("comparisons")),
                                      Link(ui("nav_models"), self.url_of("models")))
                    if link.url]
        # (use case id, link): drafts are listed as plain text, never as a dead link. Read untracked:
        # the menu is the shell's (``menu``), a page's content notes them (``use_cases``).
        self._use_case_pages = self.library.use_case_pages(lang, list(dataset.use_cases))
        self._use_case_links = [
            (page.meta.use_case or "", Link(self._typeset(page, "title"), None if page.meta.draft else page.url,
                                            description=self._typeset(page, "summary")))
            for page in self._use_case_pages]
        #: The linked use cases' titles and addresses, as the menu of every page shows them.
        self.menu = [link for _, link in self._use_case_links if link.url]
        self.menu_digest = shell.menu_digest(self.menu)
        self.methodology = Link(ui("methodology_link"), self.url_of("methodology"))
        self.language_names = {code: tracked_language(other, self.reads).name for code, other in self.languages.items()}
        self.gpu_order = {gpu_id: index for index, gpu_id in enumerate(dataset.gpus)}
        self.base_url = dataset.config.base_url.rstrip("/")
        settings = dataset.config.languages[lang]
        # Where the calls to action lead in this language (data/site.yaml); a missing one is not shown.
        self.calls_to_action = {"sign_up": settings.sign_up_url, "providers": settings.providers_url}
        ids = list(self.dataset.gpus)  # the set of pages: in the build's global key, not a read
        first_pair = self.comparison_url(ids[0], ids[1]) if len(ids) > 1 else None
        self._picker_base = first_pair.rstrip("/").rsplit("/", 1)[0] + "/" if first_pair else None

    def picker(self, first: str, second: str) -> dict[str, Any]:
        """What the "compare two GPUs" form needs: the GPUs its two lists open on (``first`` and
        ``second``), the address of the pairs' folder and that of the file of the GPUs both lists
        offer (``PICKER_OPTIONS``: one file for the site, not the same options in every page).
        Empty without a pair to compare."""
        if self._picker_base is None:
            return {}
        return {"chosen": (first, second), "base": self._picker_base, "options": "/" + PICKER_OPTIONS}

    def url_of(self, layout: str) -> str | None:
        """The URL of a page every language has (home, catalogue, search…); None only after an error."""
        return self.reserved_urls[layout]

    def gpu_url(self, gpu_id: str) -> str | None:
        page = self.library.generated("gpu", self.language.code, (gpu_id,))
        return page.url if page is not None else None

    def page_url(self, layout: str, subject_id: str) -> str | None:
        """The generated page of a GPU or a model: ``page_url("gpu", "h100-sxm")``."""
        page = self.library.generated(layout, self.language.code, (subject_id,))
        return page.url if page is not None else None

    def comparison_url(self, first: str, second: str) -> str | None:
        """The comparison page of two GPUs, whichever order they are given in."""
        a, b = sorted((first, second), key=self.gpu_order.__getitem__)
        page = self.library.generated("comparison", self.language.code, (a, b))
        return page.url if page is not None else None

    def use_cases(self, reads: Reads) -> list[tuple[str, Link]]:
        """(use case id, link) of every use-case page of the language, drafts unlinked; their titles
        and summaries noted as read into ``reads``."""
        for page in self._use_case_pages:
            reads.note(PAGE_TEXTS, page.output_path)
        return self._use_case_links

    def typeset(self, page: Page, field_name: str, reads: Reads) -> str:
        """A text field of a page's front matter in its language's typography (French spaces), noted
        into ``reads`` (the page that shows it changes with that page's front matter)."""
        reads.note(PAGE_TEXTS, page.output_path)
        return self._typeset(page, field_name)

    def _typeset(self, page: Page, field_name: str) -> str:
        return self.languages[page.lang].typography(getattr(page.meta, field_name) or "")

    def absolute(self, site_url: str) -> str:
        """The public address of a site-absolute URL, from ``base_url`` in data/site.yaml."""
        return self.base_url + site_url

    def switcher(self, page: Page) -> list[Link]:
        """The page in every language (``url`` None where it is not translated)."""
        return [Link(self.language_names[code], found.url if (found := self.library.translation(page, code)) else None,
                     code) for code in self.languages]

    def hreflang(self, page: Page) -> list[tuple[str, str]]:
        """Alternates for search engines: only real translations, and x-default: the root page, where
        a reader whose language the site does not have chooses one."""
        if not page.indexable:
            return []
        translations = {code: found for code in self.languages
                        if (found := self.library.translation(page, code)) is not None}
        if len(translations) < 2:
            return []
        alternates = [(code, self.absolute(found.url)) for code, found in translations.items()]
        alternates.append(("x-default", self.absolute("/")))
        return alternates

    def breadcrumbs(self, page: Page, reads: Reads) -> list[Link]:
        """Home › section › page, from the layout registry's parents; empty on the home page."""
        parents = LAYOUTS[page.meta.layout].parents
        if not parents:
            return []
        trail = []
        for layout in parents:
            parent = self.library.reserved(layout, page.lang)
            if parent is not None:
                trail.append(Link(self.home_label if layout == "home" else self.typeset(parent, "title", reads),
                                  parent.url))
        return [*trail, Link(self.typeset(page, "title", reads), None)]

    def breadcrumb_schema(self, breadcrumbs: list[Link]) -> Any:
        items = []
        for position, crumb in enumerate(breadcrumbs, start=1):
            item: dict[str, Any] = {"@type": "ListItem", "position": position, "name": crumb.label}
            if crumb.url:
                item["item"] = self.absolute(crumb.url)
            items.append(item)
        return json_ld({"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": items})
