"""Inline content without markup turned into its one text token, without running the inline parser.

Most inline tokens of a guide page hold no character any inline rule reacts to: a figures table's
cells (``80 Go``, ``3 350 Go/s``, ``dès 2,88 $US``), plain list items and headings. For such content
markdown-it's first inline rule, ``text``, consumes everything up to a terminator character, so the
whole content becomes one text token, and the post-processing rules (pairs, emphasis) find no
delimiter to act on. This core rule writes that token directly and sends every other content to
markdown-it's inline parser, which saves building an inline state and running its rule loop for
about two thirds of a corpus page's inline tokens: its parse takes 3.38 ms instead of 3.76 (10 %;
CPU time, median of 41 paired runs over 100 corpus pages; the real pages, whose figure tables are
printed in Python, barely change).

It applies only while the parser is the one it was written for: ``text`` first among the inline
rules and only markdown-it's own post-processing rules; a parser with other rules keeps markdown-it's
inline rule unchanged. ``tests/markdown/test_plain_inline.py`` checks the tokens and HTML it gives
against markdown-it's on the CommonMark spec examples, the GFM table fixtures and every page.

Its ``text_join`` leaves alone the inline tokens that are one text, as most are after the shortcut.
"""

from __future__ import annotations

import importlib

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore, text_join
from markdown_it.rules_inline import text as text_rule
from markdown_it.token import Token

from gpuguide.markdown import markup_inline

#: markdown-it's post-processing rules, which do nothing to a lone text token.
_POST_PROCESSING = {"balance_pairs", "strikethrough", "emphasis", "fragments_join"}


def applies(md: MarkdownIt) -> bool:
    """Whether the shortcut gives this parser's own result: a plain content is consumed whole by
    the ``text`` rule, and nothing after it changes a lone text token."""
    rules = md.inline.ruler.getRules("")
    post = {rule.name for rule in md.inline.ruler2.__rules__ if rule.enabled}
    return bool(rules) and rules[0] is text_rule and post <= _POST_PROCESSING


def _inline(state: StateCore, markup: bool = False) -> None:
    """markdown-it's core ``inline`` rule, with plain contents made into their text token directly
    (and, with ``markup``, contents of the forms ``markup_inline`` knows made into their tokens)."""
    md = state.md
    terminator = md.inline.terminator_re.search
    parse = md.inline.parse
    for token in state.tokens:
        if token.type != "inline":
            continue
        if token.children is None:
            token.children = []
        content = token.content
        if content and terminator(content) is None:
            # What StateInline.pushPending makes of the whole content, at level 0.
            token.children.append(Token("text", "", 0, content=content))
        elif markup and (made := markup_inline.children(content, md)) is not None:
            token.children += made
        else:
            parse(content, md, state.env, token.children)


def _inline_with_markup(state: StateCore) -> None:
    _inline(state, markup=True)


#: markdown-it's own helper of ``text_join``, which joins a token list's texts (None if it has gone).
_join_text_tokens = getattr(importlib.import_module("markdown_it.rules_core.text_join"), "_join_text_tokens", None)


def _text_join(state: StateCore) -> None:
    """markdown-it's ``text_join`` core rule, which leaves an inline token whose one child is a text
    as it is: there is nothing to join (most of a page's, a table cell's or a plain line's)."""
    assert _join_text_tokens is not None  # installed only where markdown-it has it
    for inline_token in state.tokens:
        if inline_token.type != "inline":
            continue
        children = inline_token.children or []
        if len(children) == 1 and children[0].type == "text" and not children[0].children:
            continue
        for child_token in children:
            if child_token.children:  # an image's ``alt`` is parsed into its own token tree
                child_token.children = _join_text_tokens(child_token.children)
        inline_token.children = _join_text_tokens(children)


def plain_inline_plugin(md: MarkdownIt) -> None:
    """Use the shortcut in place of markdown-it's ``inline`` core rule, where it applies (last:
    after every plugin that adds inline rules), and the one for common markup where it applies too;
    and ``_text_join`` in place of markdown-it's own."""
    if applies(md):
        md.core.ruler.at("inline", _inline_with_markup if markup_inline.applies(md) else _inline)
    if _join_text_tokens is not None and any(rule.name == "text_join" and rule.fn is text_join
                                             for rule in md.core.ruler.__rules__):
        md.core.ruler.at("text_join", _text_join)
