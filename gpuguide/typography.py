"""Typography of a language, applied to text (never to HTML): French no-break spaces.

French puts a narrow no-break space (U+202F) before ``;``, ``!`` and ``?``, a no-break space
(U+00A0) before ``:`` and inside « guillemets » (Imprimerie nationale, *Lexique des règles
typographiques*; the same spaces CLDR gives Babel's French numbers). Editors type an ordinary space
or none: these rules turn it into the right one, so a line never breaks before the punctuation.

``TYPOGRAPHY`` maps a name (``typography:`` of a language in ``data/site.yaml``) to a function on
plain text; the Markdown rule below applies it to the text tokens of a page, outside code, URLs
and raw HTML, and the renderer applies it to the language's UI strings and each page's title.
"""

from __future__ import annotations

import re
from typing import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

NBSP = "\u00a0"
NNBSP = "\u202f"

# A run of ordinary spaces (or tabs) before the punctuation; an existing no-break space is kept.
_BEFORE_HIGH_PUNCTUATION = re.compile(r"[ \t]+([;!?])")
_BEFORE_COLON = re.compile(r"[ \t]+:")
# Also at the edge of a text token: « then a figure, a figure then » (shortcodes are their own tokens).
_AFTER_OPENING_GUILLEMET = re.compile(r"«[ \t]*")
_BEFORE_CLOSING_GUILLEMET = re.compile(r"[ \t]*»")


def french(text: str) -> str:
    """French spacing: U+202F before ; ! ?, U+00A0 before : and inside « ».

    >>> french("Quoi ? Oui ; non : « peut-être »") == "Quoi\\u202f? Oui\\u202f; non\\u00a0: «\\u00a0peut-être\\u00a0»"
    True
    >>> french("10:30, https://example.com/a?b=c") == "10:30, https://example.com/a?b=c"  # no space: untouched
    True
    """
    if not any(char in text for char in ";!?:«»"):
        return text
    text = _BEFORE_HIGH_PUNCTUATION.sub(NNBSP + r"\1", text)
    text = _BEFORE_COLON.sub(NBSP + ":", text)
    text = _AFTER_OPENING_GUILLEMET.sub("«" + NBSP, text)
    return _BEFORE_CLOSING_GUILLEMET.sub(NBSP + "»", text)


def plain(text: str) -> str:
    """No rule: the text as written (English and most languages)."""
    return text


#: Typography rules by name, as ``data/site.yaml`` names them.
TYPOGRAPHY: dict[str, Callable[[str], str]] = {"plain": plain, "french": french}

_PUNCTUATION_AFTER_BREAK = tuple(";!?:»")


def _apply_rule(state: StateCore) -> None:
    """Apply ``env["typography"]`` to every text token of the page (not to code, links' targets or HTML).

    A line break written just before the punctuation becomes the no-break space the rule asks for.
    """
    rule: Callable[[str], str] | None = state.env.get("typography")
    if rule is None or rule is plain:
        return
    for block in state.tokens:
        if block.type == "plain_table":  # the fast path for plain tables keeps its cells in meta
            block.meta["header"] = [rule(cell) for cell in block.meta["header"]]
            block.meta["rows"] = [[rule(cell) for cell in row] for row in block.meta["rows"]]
        if block.type != "inline" or not block.children:
            continue
        children = block.children
        for index, child in enumerate(children):
            if child.type != "text":
                continue
            if (index and children[index - 1].type == "softbreak"
                    and child.content.startswith(_PUNCTUATION_AFTER_BREAK)):
                space = rule(" " + child.content[0])[0]
                if space != " ":
                    children[index - 1] = Token("text", "", 0, content=space)
            child.content = rule(child.content)


def typography_plugin(md: MarkdownIt) -> None:
    """Plug the language's typography into a markdown-it parser (after inline parsing and shortcodes)."""
    md.core.ruler.push("typography", _apply_rule)
