"""Heading ids: stable ASCII anchors (``Ce qui compte : entraînement`` → ``ce-qui-compte-entrainement``)."""

from __future__ import annotations

import re
from functools import lru_cache

from slugify import slugify

#: python-slugify's own patterns (``slugify._legacy``): characters a slug drops, runs of dashes.
_DISALLOWED = re.compile(r"[^-a-zA-Z0-9]+")


_DASHES = re.compile(r"-{2,}")


@lru_cache(maxsize=8192)
def heading_id(text: str) -> str:
    """``Ce qui compte : entraînement de LLM`` → ``ce-qui-compte-entrainement-de-llm``."""
    if text.isascii() and not any(char in text for char in "&',"):
        # What slugify does to such text (nothing to transliterate, no entity, quote or
        # thousands separator to drop), without its eight passes over it: tests compare the two.
        return _DASHES.sub("-", _DISALLOWED.sub("-", text.lower())).strip("-") or "section"
    # An explicit backend: "auto" tries to import the optional ``unidecode`` on every call.
    return slugify(text, backend="text-unidecode") or "section"
