"""Relative links between pages: ``relative_url`` against the standard library's ``posixpath.relpath``."""

from __future__ import annotations

import itertools
import posixpath

from gpuguide.render.renderer import relative_url

URLS = ["/", "/fr/", "/en/", "/fr/entrainement-llm/", "/en/llm-training/", "/fr/gpu/h100-sxm/",
        "/fr/comparer/h100-sxm-vs-a100-80gb/", "/en/guides/choosing-gpus-deep-learning-llm/", "/404.html",
        "/assets/style.css", "/fr/gpu/", "/fr/gpu/#faq", "/en/llm-training/#what-matters", "/fr"]


def _relpath_url(from_url: str, to_url: str) -> str:
    """The definition: the path from the page's folder to the target, as posixpath computes it."""
    path, hash_, fragment = to_url.partition("#")
    target = posixpath.relpath(path, posixpath.dirname(from_url) or "/")
    if target == ".":
        target = "./"
    elif path.endswith("/"):
        target += "/"
    return target + hash_ + fragment


def test_relative_url_is_posixpath_relpath_between_site_urls() -> None:
    for from_url, to_url in itertools.product(URLS, repeat=2):
        assert relative_url(from_url, to_url) == _relpath_url(from_url, to_url), (from_url, to_url)


def test_relative_links_resolve_to_their_target() -> None:
    for from_url, to_url in itertools.product(URLS, repeat=2):
        base = posixpath.dirname(from_url).rstrip("/") + "/"  # the folder a browser resolves against
        resolved = posixpath.normpath(posixpath.join(base, relative_url(from_url, to_url).partition("#")[0]))
        assert resolved == posixpath.normpath(to_url.partition("#")[0]), (from_url, to_url)
