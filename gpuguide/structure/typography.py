"""Typography of a language: rules on plain text (never on HTML), such as French no-break spaces.

French puts a narrow no-break space (U+202F) before ``;``, ``!`` and ``?``, a no-break space
(U+00A0) before ``:`` and inside « guillemets » (Imprimerie nationale, *Lexique des règles
typographiques*; the same spaces CLDR gives Babel's French numbers). Editors type an ordinary space
or none: these rules turn it into the right one, so a line never breaks before the punctuation.

``TYPOGRAPHY`` maps a name (``typography:`` of a language in ``data/site.yaml``) to its rule. The
Markdown rule (``markdown.typography_rule``) applies it to a page's text tokens; the language applies it
to its UI strings, and the renderer to each page's title.
"""

from __future__ import annotations

import functools
import re
from typing import Callable

NBSP = "\u00a0"
NNBSP = "\u202f"

# A run of spaces next to the punctuation. With an ordinary space in it (or none at all inside
# guillemets) it becomes the one space the rule asks for; a no-break space the editor typed
# (French keyboards do) is kept as typed: never a second one beside it. (Plain substitutions,
# no callback: the rule runs on every text of every French page.)
# A whole run (from its start: linear on a long run of spaces) with an ordinary space in it.
_SPACED = "(?<![ \t\u00a0\u202f])[\u00a0\u202f]*[ \t][ \t\u00a0\u202f]*+"
_BEFORE_HIGH_PUNCTUATION = re.compile(_SPACED + "([;!?])")
_BEFORE_COLON = re.compile(_SPACED + ":")
# Also at the edge of a text token: « then a figure, a figure then » (shortcodes are their own tokens).
# Not when only no-break spaces follow « (or precede »).
_AFTER_OPENING_GUILLEMET = re.compile("«(?![\u00a0\u202f]+(?:[^ \t\u00a0\u202f]|$))[ \t\u00a0\u202f]*")
_BEFORE_CLOSING_GUILLEMET = re.compile("(?:" + _SPACED + "|(?<![ \t\u00a0\u202f]))»")


#: What the rule acts on: a text without any is returned as it is.
_PUNCTUATION = re.compile("[;!?:«»]")


@functools.lru_cache(maxsize=16384)  # UI strings and titles repeat on every page
def french(text: str) -> str:
    """French spacing: U+202F before ; ! ?, U+00A0 before : and inside « ».

    >>> french("Quoi ? Oui ; non : « peut-être »") == "Quoi\\u202f? Oui\\u202f; non\\u00a0: «\\u00a0peut-être\\u00a0»"
    True
    >>> french("10:30, https://example.com/a?b=c") == "10:30, https://example.com/a?b=c"  # no space: untouched
    True
    >>> french("«\u00a0déjà\u00a0» ?") == french("« déjà » ?")  # typed no-break spaces are not doubled
    True
    """
    if _PUNCTUATION.search(text) is None:
        return text
    # Each substitution only where its character is (a text has one or two of them, if any).
    if ";" in text or "!" in text or "?" in text:
        text = _BEFORE_HIGH_PUNCTUATION.sub(NNBSP + r"\1", text)
    if ":" in text:
        text = _BEFORE_COLON.sub(NBSP + ":", text)
    if "«" in text:
        text = _AFTER_OPENING_GUILLEMET.sub("«" + NBSP, text)
    if "»" in text:
        text = _BEFORE_CLOSING_GUILLEMET.sub(NBSP + "»", text)
    return text


def plain(text: str) -> str:
    """No rule: the text as written (English and most languages)."""
    return text


#: Typography rules by name, as ``data/site.yaml`` names them.
TYPOGRAPHY: dict[str, Callable[[str], str]] = {"plain": plain, "french": french}
