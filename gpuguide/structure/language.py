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
from typing import Any, Callable, Union

from babel import Locale

from gpuguide.cached import cached_property
from gpuguide.structure.typography import TYPOGRAPHY



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


def fill(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each ``{name}`` replaced by ``values[name]``, and ``{{``/``}}`` by braces: the
    one placeholder syntax editors write (a title of a generator page, a UI string), never Python's
    format mini-language (``{model:>3000000}``, ``{model.__class__}``). ValueError for anything but
    a plain name, KeyError for a name ``values`` lacks.

    >>> fill("{model} : fiche", {"model": "H100"})
    'H100 : fiche'
    >>> fill("{model:>30}", {"model": "H100"})
    Traceback (most recent call last):
    ...
    ValueError: `{model:>30}`: a placeholder is a plain name such as `{price}`
    """
    placeholders(text)  # refuses attributes, indexes, conversions and format specs
    parts = []
    for literal, name, _, _ in string.Formatter().parse(text):
        parts.append(literal)
        if name is not None:
            parts.append(values[name])
    return "".join(parts)


UiString = Union[str, Mapping[str, str]]  # one text, or one per CLDR plural category


@dataclass(frozen=True)
class Language:
    """One language of the site, made once per build and passed as one value: its code, its
    locale (which formats numbers and picks plural forms), its typography and its UI strings."""

    code: str  # the URL prefix: ``fr``
    locale: str  # Babel's: ``fr_FR``
    typography: Callable[[str], str] = field(compare=False)
    strings: Mapping[str, UiString] = field(compare=False, repr=False)

    @cached_property
    def _plural_form(self) -> Callable[[Any], str]:
        return Locale.parse(self.locale).plural_form

    def ui(self, key: str, **values: Any) -> str:
        """The UI string ``key`` with its ``{name}`` placeholders filled: ``ui("price_from", price="8,99 $US")``.

        A string written as plural forms (``{one: …, other: …}``) takes the form CLDR's rules of the
        locale give for its ``count`` value (French: 0, 1 and 0,65 are "one"; English: only 1). The
        typography applies to the string as written, before the values go in (they are typeset
        already: figures by Babel, titles by their page). Without values the string is returned as
        written (a script fills its placeholders in the browser).
        """
        try:
            text = self.strings[key]
        except KeyError:
            raise MissingUiString(self.code, key) from None
        if not isinstance(text, str):
            count = values.get("count")
            if not isinstance(count, (int, float, Fraction)):
                raise UnknownPlaceholder(self.code, key, "count", sorted(values))
            text = text.get(self._plural_form(abs(count)), text["other"])
        text = self.typography(text)
        if not values:
            return text
        try:
            return text.format_map(values)
        except KeyError as exc:
            raise UnknownPlaceholder(self.code, key, str(exc.args[0]), sorted(values)) from None

    @property
    def name(self) -> str:
        """The language's own name, for the language switcher: ``Français``."""
        return self.ui("language_name")


def make_language(code: str, locale: str, typography: str, strings: Mapping[str, UiString]) -> Language:
    """The language ``code`` with its locale, its typography rule (by name) and its UI strings."""
    return Language(code, locale, TYPOGRAPHY[typography], strings)
