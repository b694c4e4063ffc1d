"""markdown-it's block rules, each tried only at a line whose first character can start its block.

CommonMark recognises a block by the first character of its line, after at most three spaces: a
fenced code block starts with `` ` `` or ``~``, a block quote with ``>``, a thematic break with
``*``, ``-`` or ``_``, a list item with ``*``, ``-``, ``+`` or a digit, a link reference definition
with ``[``, an HTML block with ``<``, an ATX heading with ``#``. markdown-it tries its rules in turn
at the first line of every block, and again, as terminators, at each further line of a paragraph, a
list or a table; each rule logs a debug message and checks the line's indentation before it looks
at that character. A corpus page made some 390 such calls, 370 of them for nothing: turning
them away here renders a corpus page about 5 % faster (``bench/README.md``).

Here each of those rules, where it is markdown-it's own function, is wrapped in a test of that first
character and called only when the character can start its block: its result is the rule's own,
since a rule that returns true has matched its marker there. Every other rule (the table, indented
code, setext headings, paragraphs, a plugin's) is tried as before. ``tests/markdown/test_plain_inline.py``
compares the tokens and HTML with markdown-it's own on the CommonMark spec examples, the GFM table
fixtures, every page and the corpus; ``tests/markdown/test_block_starts.py`` checks, on every rule
call those examples make, that no rule matches at a line its test turns away.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it import rules_block
from markdown_it.rules_block import StateBlock

BlockRule = Callable[[StateBlock, int, int, bool], bool]

#: markdown-it's rules and the characters their blocks start with (CommonMark 0.31, sections 4 and 5).
FIRST_CHARACTERS: dict[BlockRule, str] = {
    rules_block.fence: "`~",
    rules_block.blockquote: ">",
    rules_block.hr: "*-_",
    rules_block.list_block: "*-+0123456789",
    rules_block.reference: "[",
    rules_block.html_block: "<",
    rules_block.heading: "#",
}


def can_start(state: StateBlock, line: int, characters: str) -> bool:
    """Whether ``line``'s first character (after its indentation) is one of ``characters``."""
    position = state.bMarks[line] + state.tShift[line]
    return position < state.eMarks[line] and state.src[position] in characters


def gated(rule: BlockRule, characters: str) -> BlockRule:
    """``rule``, called only at a line that starts with one of ``characters``."""

    def rule_at_its_start(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        # ``can_start``, written out: this runs some 390 times a page, and a call would cost what it saves.
        position = state.bMarks[start] + state.tShift[start]
        if position >= state.eMarks[start] or state.src[position] not in characters:
            return False
        return rule(state, start, end, silent)

    rule_at_its_start.__name__ = getattr(rule, "__name__", "rule")
    rule_at_its_start.__wrapped__ = rule  # type: ignore[attr-defined]
    return rule_at_its_start


def block_starts_plugin(md: MarkdownIt) -> None:
    """Wrap each of markdown-it's own block rules in ``md`` in the test of its first character,
    keeping its name, its place and the chains (``alt``) it terminates."""
    ruler = md.block.ruler
    for rule in list(ruler.__rules__):
        characters = FIRST_CHARACTERS.get(rule.fn)
        if characters is not None:
            ruler.at(rule.name, gated(rule.fn, characters), {"alt": list(rule.alt)})
