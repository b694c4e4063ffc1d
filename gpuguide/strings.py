"""UI strings: one table per language in ``data/ui/<lang>.yaml``; a missing key is an error.

There is no fallback to another language: a page would silently mix languages.
"""

from __future__ import annotations

from typing import Callable

UiText = Callable[..., str]


class MissingUiString(LookupError):
    """A template or table asked for a UI string the language does not define."""

    def __init__(self, lang: str, key: str):
        self.lang, self.key = lang, key
        super().__init__(f"missing UI string `{key}` in data/ui/{lang}.yaml")


def ui_text(strings: dict[str, dict[str, str]], lang: str) -> UiText:
    """A lookup ``ui("key", name=value)`` for one language, filling ``{name}`` placeholders."""
    table = strings[lang]

    def lookup(key: str, **values: object) -> str:
        try:
            text = table[key]
        except KeyError:
            raise MissingUiString(lang, key) from None
        return text.format(**values) if values else text

    return lookup
