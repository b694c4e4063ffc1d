"""Inline content with the markup guide pages mostly carry, turned into markdown-it's tokens without
running its inline parser.

A guide's paragraph, list item or table cell with markup holds a few of ``**strong**``,
``*emphasis*``, a ``code`` span, a ``[link](page.md)`` and a ``{{ shortcode }}``, between runs of
text. For such content markdown-it tries each of its inline rules at each character that might
start one (a hyphen, a ``$``, a colon…), builds delimiters for the emphasis and pairs them in two
more passes: about 12 µs a token, a fifth of a corpus page. ``children`` writes the tokens
markdown-it ends with for a narrow form of each construct, where CommonMark leaves no choice:

- a code span between single backticks, not both starting and ending with a space;
- ``*`` or ``**`` after the start, a space or ``(``, before a letter or digit, closed by the same
  run after a letter or digit and before the end, a space or ``.,;:!?)``, with text without markup
  between (the opener can only open and the closer only close: nothing to weigh);
- ``[text](address)`` with text without markup and an address of URL characters that
  markdown-it accepts as it is (no space, parenthesis, ``&``, backslash or title), not after ``!``;
- ``{{ … }}``, as the site's shortcode rule reads it;
- everything else text, with any character no rule of this parser starts at (``$``, ``-``, ``:``,
  ``]``…).

Anything else (an escape, an entity, ``_``, ``<``, a line break, another run of ``*``, a nested
construct) makes ``children`` return None, and the content goes to markdown-it's inline parser.

It applies only to the parser it was written for: exactly the site's inline rules, markdown-it's
post-processing, no linkify nor HTML (``applies``). ``tests/markdown/test_plain_inline.py`` compares
its tokens and HTML with markdown-it's on the CommonMark spec examples, the GFM table fixtures,
every page of the site and of the benchmark's corpus, and generated content.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_inline import autolink, backtick, emphasis, entity, escape, html_inline, image, newline, text
from markdown_it.token import Token

from gpuguide.markdown.links import _link_with_offset
from gpuguide.markdown.shortcodes import _shortcode_rule

#: The inline rules (in order) and post-processing rules this reproduces, and nothing else.
_RULES = (text, newline, _shortcode_rule, escape, backtick, emphasis.tokenize, _link_with_offset, image, autolink,
          html_inline, entity)
_POST_PROCESSING = ("balance_pairs", "emphasis", "fragments_join")

#: The characters at which a construct may start: each is handled below, or gives up.
_SPECIAL = re.compile(r"[`*\[{_&<\\\n~]")
#: An address markdown-it takes as written: normalised by ``normalizeLink`` only.
_ADDRESS = re.compile(r"[A-Za-z0-9\-._~:/?#@!$+,;=%]+")
_BEFORE_OPENER = frozenset(" (")
_AFTER_CLOSER = frozenset(" .,;:!?)")


def applies(md: MarkdownIt) -> bool:
    """Whether this parser's inline rules are the ones ``children`` reproduces."""
    rules = tuple(md.inline.ruler.getRules(""))
    post = tuple(rule.name for rule in md.inline.ruler2.__rules__ if rule.enabled)
    return (rules == _RULES and post == _POST_PROCESSING and not md.options.get("html")
            and not md.options.get("linkify"))


def children(content: str, md: MarkdownIt) -> list[Token] | None:
    """markdown-it's inline tokens for ``content``, or None when it holds anything but the forms above."""
    tokens: list[Token] = []
    # The text since the last token, in pieces joined once: a run of single braces would make a
    # string concatenated piece by piece quadratic in its length.
    pending: list[str] = []
    position, end = 0, len(content)
    # markdown-it leaves one of a strong run's two delimiters as an empty text token on each side
    # of it: joined to the text beside it, kept where there is none (``fragments_join``).
    empty_owed = False

    def flush() -> None:
        nonlocal empty_owed
        text = "".join(pending)
        if text or empty_owed:
            tokens.append(Token("text", "", 0, content=text))
            pending.clear()
            empty_owed = False

    while (found := _SPECIAL.search(content, position)) is not None:
        start = found.start()
        pending.append(content[position:start])
        char = content[start]
        if char == "`":
            close = content.find("`", start + 1)
            code = content[start + 1:close].replace("\n", " ")
            if (close < 0 or not code or content.startswith("`", close + 1)
                    or (code[0] == " " and code[-1] == " ")):
                return None
            flush()
            tokens.append(Token("code_inline", "code", 0, content=code, markup="`"))
            position = close + 1
        elif char == "*":
            run = 2 if content.startswith("**", start) else 1
            opened = start + run
            close = content.find("*", opened)
            inner = content[opened:close]
            after = close + run
            if (close < 0 or content.startswith("*", opened) or (start and content[start - 1] not in _BEFORE_OPENER)
                    or not inner or not inner[0].isalnum() or not inner[-1].isalnum()
                    or _SPECIAL.search(inner) is not None or content[close:after] != "*" * run
                    or (after < end and content[after] not in _AFTER_CLOSER)):
                return None
            tag, markup = ("strong", "**") if run == 2 else ("em", "*")
            flush()
            if run == 2 and (not tokens or tokens[-1].type != "text"):
                tokens.append(Token("text", "", 0))
            tokens += [Token(f"{tag}_open", tag, 1, markup=markup), Token("text", "", 0, content=inner, level=1),
                       Token(f"{tag}_close", tag, -1, markup=markup)]
            empty_owed = run == 2
            position = after
        elif char == "[":
            label_end = content.find("]", start + 1)
            label = content[start + 1:label_end]
            close = content.find(")", label_end + 2) if label_end > 0 else -1
            address = content[label_end + 2:close]
            if (close < 0 or not label or content[label_end + 1] != "(" or (start and content[start - 1] == "!")
                    or _SPECIAL.search(label) is not None or _ADDRESS.fullmatch(address) is None):
                return None
            href = md.normalizeLink(address)
            if not md.validateLink(href):
                return None
            flush()
            tokens += [Token("link_open", "a", 1, attrs={"href": href}, meta={"offset": start}),
                       Token("text", "", 0, content=label, level=1), Token("link_close", "a", -1)]
            position = close + 1
        elif char == "{" and content.startswith("{{", start):
            close = content.find("}}", start + 2)
            if close < 0:
                return None
            flush()
            tokens.append(Token("shortcode", "", 0, content=content[start + 2:close].strip(),
                                meta={"source": content[start:close + 2], "offset": start}))
            position = close + 2
        elif char == "{":
            pending.append(char)
            position = start + 1
        else:
            return None
    pending.append(content[position:])
    flush()
    return tokens
