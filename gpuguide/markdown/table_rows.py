"""markdown-it's own table rule, its rows split into cells by ``str.split`` when they hold no backslash.

markdown-it splits each row of a table with ``escapedSplit``, a loop over the row's characters in
Python that splits at every pipe not escaped by a backslash and drops that backslash: with no
backslash in the row, that is ``row.split("|")``, done in C. A corpus page's two tables are 15 rows:
splitting them took about a tenth of its Markdown (``bench/README.md`` gives what it saves).

The rule is markdown-it's own function (its code, defaults and every other name it uses), given that
splitter in its globals: nothing of markdown-it is copied or changed, and a markdown-it whose rule no
longer calls ``escapedSplit`` keeps its rule unchanged. ``tests/markdown/test_plain_inline.py`` checks
the tokens and HTML against markdown-it's on the CommonMark spec examples, its GFM table fixtures and
every page.
"""

from __future__ import annotations

import types
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import table as markdown_it_table

_escaped_split = markdown_it_table.__globals__.get("escapedSplit")


def split_row(row: str) -> list[str]:
    """What markdown-it's ``escapedSplit`` gives for ``row``.

    >>> split_row("| a | b |"), split_row("| a \\\\| b |")
    (['', ' a ', ' b ', ''], ['', ' a | b ', ''])
    """
    if "\\" in row:
        assert _escaped_split is not None  # the rule is only used where markdown-it has it
        return list(_escaped_split(row))
    return row.split("|")


def _with_split_row() -> Any:
    return types.FunctionType(markdown_it_table.__code__, {**markdown_it_table.__globals__, "escapedSplit": split_row},
                              markdown_it_table.__name__, markdown_it_table.__defaults__, markdown_it_table.__closure__)


def applies(md: MarkdownIt) -> bool:
    """Whether this parser's table rule is markdown-it's own, splitting rows with ``escapedSplit``."""
    rule = _table_rule(md)
    return (rule is not None and rule.fn is markdown_it_table and _escaped_split is not None
            and "escapedSplit" in markdown_it_table.__code__.co_names)


def table_rows_plugin(md: MarkdownIt) -> None:
    """Use markdown-it's table rule with ``split_row`` in place of its own, where it applies."""
    rule = _table_rule(md)
    if rule is not None and applies(md):
        md.block.ruler.at("table", _with_split_row(), {"alt": list(rule.alt)})


def _table_rule(md: MarkdownIt) -> Any:
    return next((rule for rule in md.block.ruler.__rules__ if rule.name == "table"), None)
