"""The language's typography applied to a page's text by a markdown-it core rule (``structure.typography``
holds the rules): text tokens only, so code, link targets and raw HTML are never touched."""

from __future__ import annotations

from typing import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from gpuguide.structure.typography import plain

_PUNCTUATION_AFTER_BREAK = tuple(";!?:»")


def _apply_rule(state: StateCore) -> None:
    """Apply ``env["typography"]`` to every text token of the page (not to code, links' targets or HTML).

    A line break written just before the punctuation becomes the no-break space the rule asks for.
    """
    rule: Callable[[str], str] | None = state.env.get("typography")
    if rule is None or rule is plain:
        return
    # The rule itself, not its cache (``lru_cache``'s ``__wrapped__``): a page's texts are its own,
    # and hashing and storing each one cost more than the rule (bench/README.md).
    rule = getattr(rule, "__wrapped__", rule)
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children = block.children
        for index, child in enumerate(children):
            if child.type != "text":
                continue
            if (index and children[index - 1].type == "softbreak"
                    and child.content.startswith(_PUNCTUATION_AFTER_BREAK)):
                # The break read as a space before the punctuation: if the rule makes it a no-break
                # space, the break goes and the text starts with that space (one, not two).
                joined = rule(" " + child.content)
                if not joined.startswith(" "):
                    children[index - 1] = Token("text", "", 0, content="")
                    child.content = joined
                    continue
            child.content = rule(child.content)


def typography_plugin(md: MarkdownIt) -> None:
    """Plug the language's typography into a markdown-it parser (after inline parsing and shortcodes)."""
    md.core.ruler.push("typography", _apply_rule)
