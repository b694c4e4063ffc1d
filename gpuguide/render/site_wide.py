"""The two pages made of the whole site, rendered at every build with a page renderer's templates
and views: the root page (a link to each language's home page) and ``/404.html`` (every
language's "not found" page).

Their ids and links are found by parsing them (``build.link_check.parse_page``): the templates of
these two pages write theirs as they are, without ``anchor()`` and ``link()``.
"""

from __future__ import annotations

import jinja2

from gpuguide.render.cards import CARD_FILE, Card
from gpuguide.render.environment import Link, relative_url
from gpuguide.render.reads import Reads
from gpuguide.render.renderer import PageRenderer
from gpuguide.structure.pages import head_title


def render_root(renderer: PageRenderer) -> tuple[str, Card] | None:
    """The site's root page: one link per language, each to that language's home page; the
    page search engines send readers whose language the site does not have (x-default)."""
    languages = []
    homes = []
    for code, view in renderer.views.items():
        home = view.url_of("home")
        page = renderer.library.reserved("home", code)
        if home is not None and page is not None:
            languages.append(Link(view.language.name, relative_url("/", home), code,
                                  view.language.ui("choose_language")))
            homes.append((code, view, page))
    config = renderer.dataset.config
    default = next((item for item in homes if item[0] == config.default_language), homes[0] if homes else None)
    # The root page is rendered at every build: what it reads is not kept.
    read = Reads()
    title = head_title(" · ".join(view.typeset(page, "title", read) for _, view, page in homes), config.site_name)
    description = default[1].typeset(default[2], "description", read) if default else ""
    base = config.base_url.rstrip("/")
    card = renderer.site_card(read)
    try:
        html = renderer.env.get_template("root.html").render(
            site_name=config.site_name, languages=languages, default_language=config.default_language,
            title=title, description=description, canonical=base + "/", card=card,
            card_url=base + "/" + CARD_FILE,
            hreflang=[*((code, base + page.url) for code, _, page in homes), ("x-default", base + "/")])
    except jinja2.TemplateError as exc:
        path, line = renderer.template_position()
        renderer.problems.error(path, line, 1, f"template error: {exc}", "while rendering the root page")
        return None
    return html, card

def render_not_found_everywhere(renderer: PageRenderer) -> str | None:
    """``/404.html``, which servers show at any missing address: every language's "not found" page."""
    sections = []
    for code in renderer.views:
        page = renderer.library.reserved("not_found", code)
        if page is not None:
            sections.append(renderer.context(page, Reads(), {}))
    try:
        return renderer.env.get_template("not_found_all.html").render(
            sections=sections, site_name=renderer.dataset.config.site_name,
            default_language=renderer.dataset.config.default_language)
    except jinja2.TemplateError as exc:
        path, line = renderer.template_position()
        renderer.problems.error(path, line, 1, f"template error: {exc}", "while rendering /404.html")
        return None
