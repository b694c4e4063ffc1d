"""Sharing cards in the build cache: each distinct card is drawn once (``render.cards``), kept in
``.build-cache/cards/<digest>.png``, and published beside its page as ``og.png``. An unchanged
page's card is neither drawn nor written again; a page whose title or key figure changed gets a
new drawing (a new digest), drawn where the page is rendered (on every core)."""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from gpuguide.render.cards import CARD_FILE, Card, draw

FOLDER = "cards"  # under the build cache


def card_output(page_output: str) -> str:
    """Where a page's card is published: ``fr/entrainement-llm/index.html`` → ``fr/entrainement-llm/og.png``."""
    folder = posixpath.dirname(page_output)
    return posixpath.join(folder, CARD_FILE) if folder else CARD_FILE


def ensure_drawn(card: Card, cache: Path) -> str:
    """The path of the cached drawing of ``card``, drawn now if the cache does not have it (written
    under a temporary name and renamed: workers drawing the same card at once never see half a
    file). A string: every page's card is looked up at every build."""
    path = os.path.join(cache, card.file_name)
    if not os.path.isfile(path):
        cache.mkdir(parents=True, exist_ok=True)
        temporary = os.path.join(cache, f".{card.file_name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as out:
            out.write(draw(card))
        os.replace(temporary, path)
    return path


def cached_drawing(file_name: str | None, cache: Path) -> str | None:
    """The path of the drawing ``file_name`` in the cache, if the cache has it."""
    if file_name is None:
        return None
    path = os.path.join(cache, file_name)
    return path if os.path.isfile(path) else None


def draw_again(card: Card, cache: Path) -> str:
    """``ensure_drawn``, replacing the cached drawing (a new file: one written over through a hard
    link from site/ is not trusted)."""
    try:
        os.unlink(os.path.join(cache, card.file_name))
    except FileNotFoundError:
        pass
    return ensure_drawn(card, cache)


def prune(cache: Path, keep: set[str]) -> None:
    """Remove the drawings no page of the site shows any more (a title changed, a new design)."""
    try:
        names = os.listdir(cache)
    except OSError:
        return
    for name in names:
        if name.endswith(".png") and name not in keep:
            try:
                os.unlink(os.path.join(cache, name))
            except OSError:
                pass
