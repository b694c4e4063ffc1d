"""UI strings and the language they belong to: one table per language in ``data/ui/<lang>.yaml``.

A missing key is an error; there is no fallback to another language (a page would silently mix
languages). A ``Language`` is made once per build for each language of ``data/site.yaml`` and
travels as one value: its code, its Babel locale, its typography and its UI strings.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from babel import Locale

from .typography import TYPOGRAPHY

UiText = Callable[..., str]


class MissingUiString(LookupError):
    """A template or table asked for a UI string the language does not define."""

    def __init__(self, lang: str, key: str):
        self.lang, self.key = lang, key
        super().__init__(f"missing UI string `{key}` in data/ui/{lang}.yaml")


class UnknownPlaceholder(LookupError):
    """A UI string uses a placeholder the generator does not fill where it is used."""

    def __init__(self, lang: str, key: str, name: str, known: list[str]):
        self.lang, self.key, self.name, self.known = lang, key, name, known
        filled = ", ".join(f"{{{k}}}" for k in known) or "none"
        super().__init__(f"the UI string `{key}` uses `{{{name}}}`, which is not filled here (placeholders: {filled})")


def placeholders(text: str) -> list[str]:
    """The ``{name}`` placeholders of a UI string; ValueError for anything else (``{0}``, ``{a.b}``, ``{a:>3}``, a lone brace).

    >>> placeholders("dès {price}/h")
    ['price']
    >>> placeholders("{title.__class__}")
    Traceback (most recent call last):
    ...
    ValueError: `{title.__class__}`: a placeholder is a plain name such as `{price}`
    """
    names = []
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            raise ValueError(f"`{shown}`: a placeholder is a plain name such as `{{price}}`")
        names.append(name)
    return names


def ui_text(strings: Mapping[str, Mapping[str, Any]], lang: str,
            typography: Callable[[str], str] = TYPOGRAPHY["plain"], locale: str = "en") -> UiText:
    """A lookup ``ui("key", name=value)`` for one language, filling ``{name}`` placeholders.

    A string written as plural forms (``{one: …, other: …}``) takes the form CLDR's rules of the
    locale give for its ``count`` value (French: 0 and 1 are "one", 0,65 too; English: only 1).
    The language's typography applies to the string as written, before the values go in (they are
    typeset already: figures by Babel, titles by their own page).
    """
    table = strings[lang]
    plural_form = Locale.parse(locale).plural_form

    def lookup(key: str, **values: Any) -> str:
        try:
            text = table[key]
        except KeyError:
            raise MissingUiString(lang, key) from None
        if isinstance(text, Mapping):
            count = values.get("count")
            if not isinstance(count, (int, float, Fraction)):
                raise UnknownPlaceholder(lang, key, "count", sorted(values))
            category = plural_form(abs(count))
            text = text.get(category, text["other"])
        text = typography(text)
        if not values:  # the raw string (a script fills its placeholders in the browser)
            return text
        try:
            return text.format_map(values)
        except KeyError as exc:
            raise UnknownPlaceholder(lang, key, str(exc.args[0]), sorted(values)) from None


    return lookup


@dataclass(frozen=True)
class Language:
    """One language of the site, made once per build: everything a page needs to speak it."""

    code: str  # the URL prefix: ``fr``
    locale: str  # Babel's: ``fr_FR``
    typography: Callable[[str], str] = field(compare=False)
    ui: UiText = field(compare=False)

    @property
    def name(self) -> str:
        """The language's own name, for the language switcher: ``Français``."""
        return self.ui("language_name")


def make_language(code: str, locale: str, typography: str, strings: Mapping[str, Mapping[str, Any]]) -> Language:
    rule = TYPOGRAPHY[typography]
    return Language(code, locale, rule, ui_text(strings, code, rule, locale))
