"""markdown-it's HTML renderer with its generic tag printer and its inline loop written for speed.

A guide page is some 400 tokens, most of them tags without attributes (``<p>``, ``<tr>``, ``<td>``)
and text. markdown-it prints each tag through ``renderToken`` (which calls ``renderAttrs``, which
calls ``Token.attrItems``) and each text through a looked-up rule; here a tag without attributes
skips the attribute printer, and a text token is escaped in the loop while ``text`` is markdown-it's
own rule. The output is markdown-it's, character for character (``tests/markdown/test_plain_inline.py``
compares the two on the CommonMark spec, the GFM table fixtures and every page). Printing a corpus
page's tokens takes 0.81 ms instead of 0.93 (13 %; CPU time, median of 41 paired runs over 100 pages).

Each tag's ids and addresses are noted in ``env["known"]`` as they are printed (``render.known_links``).
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict


class SiteRenderer(RendererHTML):
    """``RendererHTML``, faster on tags without attributes and on text; every rule, default or
    added by a plugin, is called as markdown-it calls it."""

    def render(self, tokens: Sequence[Token], options: OptionsDict, env: EnvType) -> str:
        rules = self.rules
        out: list[str] = []
        for index, token in enumerate(tokens):
            kind = token.type
            if kind == "inline":
                if token.children:
                    out.append(self.renderInline(token.children, options, env))
                continue
            rule = rules.get(kind)
            out.append(rule(tokens, index, options, env) if rule is not None
                       else self.renderToken(tokens, index, options, env))
        return "".join(out)

    def renderInline(self, tokens: Sequence[Token], options: OptionsDict, env: EnvType) -> str:
        rules = self.rules
        # markdown-it's text rule is escapeHtml of the content: done here, unless a plugin replaced it.
        own_text = getattr(rules.get("text"), "__func__", None) is RendererHTML.text
        out: list[str] = []
        for index, token in enumerate(tokens):
            kind = token.type
            if kind == "text" and own_text:
                out.append(escapeHtml(token.content))
                continue
            rule = rules.get(kind)
            out.append(rule(tokens, index, options, env) if rule is not None
                       else self.renderToken(tokens, index, options, env))
        return "".join(out)

    def renderToken(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        """markdown-it's ``renderToken``, step for step; the attributes printed only when there are some."""
        token = tokens[idx]
        if token.hidden:
            return ""
        nesting = token.nesting
        # A line break between a hidden paragraph and the block-level tag that opens after it.
        result = "\n" if token.block and nesting != -1 and idx and tokens[idx - 1].hidden else ""
        result += ("</" if nesting == -1 else "<") + token.tag
        if token.attrs:
            result += self.renderAttrs(token)
            if (known := env.get("known")) is not None:  # ``render.known_links``: for the link check
                known.attributes(token.attrs)
        if nesting == 0 and options["xhtmlOut"]:
            result += " /"
        if not token.block:
            return result + ">"
        if nesting == 1 and idx + 1 < len(tokens):
            following = tokens[idx + 1]
            if following.type == "inline" or following.hidden or (
                    following.nesting == -1 and following.tag == token.tag):
                return result + ">"
        return result + ">\n"
