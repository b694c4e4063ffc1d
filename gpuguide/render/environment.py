"""The Jinja2 environment, and the small helpers every template needs: relative URLs, JSON-LD, links."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup


def make_environment(templates_dir: Path) -> jinja2.Environment:
    """Autoescape on, undefined variables are errors; one environment per build."""
    return jinja2.Environment(
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


@dataclass(frozen=True)
class Link:
    label: str
    url: str | None  # None: the page does not exist (yet); shown as plain text, never a dead link
    lang: str | None = None
    description: str | None = None


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
