"""The page types (layouts) and the contract between content and renderer, declared in one registry.

Some pages must exist once in every language: the renderer links to them from every page
(catalogue, search, guides…) or generates pages from them (one GPU page per GPU, one model page
per model of data/models.yaml). A missing or
doubled one is an error at load time, never a silently missing link.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Layout = Literal["home", "use_case", "catalogue", "gpu", "comparisons", "comparison", "models", "model", "guides",
                 "guide", "methodology", "search", "not_found"]


@dataclass(frozen=True)
class LayoutRule:
    """What the site expects of the pages of one layout."""

    name: Layout
    required: bool  # exactly one published page (or pattern) per language
    generates: Literal["gpu", "pair", "model"] | None = None  # one Markdown file makes a page per GPU, pair, model
    parents: tuple[Layout, ...] = ("home",)  # the breadcrumb trail above it, by layout
    sitemap: bool = True  # listed in sitemap.xml and indexed by search engines (else `noindex`)


LAYOUTS: dict[str, LayoutRule] = {rule.name: rule for rule in (
    LayoutRule("home", True, parents=()),
    LayoutRule("use_case", False),
    LayoutRule("catalogue", True),
    LayoutRule("gpu", True, generates="gpu", parents=("home", "catalogue")),
    LayoutRule("comparisons", True),
    LayoutRule("comparison", True, generates="pair", parents=("home", "comparisons")),
    LayoutRule("models", True),
    LayoutRule("model", True, generates="model", parents=("home", "models")),
    LayoutRule("guides", True),
    LayoutRule("guide", False, parents=("home", "guides")),
    LayoutRule("methodology", True),
    LayoutRule("search", True, sitemap=False),
    LayoutRule("not_found", True, parents=(), sitemap=False),
)}

assert set(LAYOUTS) == set(get_args(Layout)), "every layout has a rule"

#: Layouts whose one Markdown file generates pages from the dataset.
GENERATOR_LAYOUTS = tuple(name for name, rule in LAYOUTS.items() if rule.generates)
