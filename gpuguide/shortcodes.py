"""Shortcodes: figures quoted in prose, computed by the sizing library so prose never drifts from tables.

An editor writes ``{{ name key=value … }}`` in Markdown (body or front-matter note), for example
``{{ usable_memory_share }}`` → ``80 %`` / ``80%``. Each shortcode is a function below; its
keyword arguments are the shortcode's arguments, converted to the annotated type. Unknown names,
unknown or missing arguments and bad values are reported with the file and line.

The markdown-it inline rule recognises the syntax; a core rule evaluates each shortcode once,
with the page's language in ``env``; a render rule prints the (escaped) result.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from . import formatting, sizing
from .datasets import Dataset
from .errors import Problems, did_you_mean
from .strings import UiText


@dataclass(frozen=True)
class ShortcodeContext:
    dataset: Dataset
    lang: str
    ui: UiText

    @property
    def locale(self) -> str:
        return self.dataset.config.languages[self.lang]


class ShortcodeError(ValueError):
    """A shortcode was given a value it cannot use; the message says what would work."""


SHORTCODES: dict[str, Callable[..., str]] = {}


def shortcode(function: Callable[..., str]) -> Callable[..., str]:
    SHORTCODES[function.__name__] = function
    return function


@shortcode
def usable_memory_share(ctx: ShortcodeContext) -> str:
    """The share of GPU memory the sizing counts on: ``80 %`` / ``80%``."""
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), ctx.locale)


# --- parsing -------------------------------------------------------------------------------------

_ARGUMENT = re.compile(r'\s*([a-z_][a-z0-9_]*)=("([^"]*)"|[^\s"]+)')
_NAME = re.compile(r"\s*([a-z_][a-z0-9_]*)")


def _shortcode_rule(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if not src.startswith("{{", start):
        return False
    end = src.find("}}", start + 2)
    if end < 0:
        return False
    if not silent:
        token = state.push("shortcode", "", 0)
        token.content = src[start + 2:end].strip()
        token.meta = {"source": src[start:end + 2]}
    state.pos = end + 2
    return True


def _parse(text: str) -> tuple[str, dict[str, str]]:
    name_match = _NAME.match(text)
    if not name_match:
        raise ShortcodeError("a shortcode starts with its name, e.g. `{{ usable_memory_share }}`")
    args: dict[str, str] = {}
    rest = text[name_match.end():]
    while rest.strip():
        match = _ARGUMENT.match(rest)
        if not match:
            raise ShortcodeError(f"cannot read the arguments `{rest.strip()}`; write `name=value`")
        args[match.group(1)] = match.group(3) if match.group(3) is not None else match.group(2)
        rest = rest[match.end():]
    return name_match.group(1), args


def evaluate(text: str, ctx: ShortcodeContext) -> str:
    """Run the shortcode written as ``text`` (without braces); raise ShortcodeError with a hint."""
    name, raw_args = _parse(text)
    function = SHORTCODES.get(name)
    if function is None:
        hint = did_you_mean(name, SHORTCODES)
        raise ShortcodeError(f"unknown shortcode `{name}`" + (f"; {hint}" if hint else
                             f"; known shortcodes: {', '.join(sorted(SHORTCODES))}"))
    parameters = list(inspect.signature(function).parameters.values())[1:]
    known = {p.name: p for p in parameters}
    for key in raw_args:
        if key not in known:
            hint = did_you_mean(key, known)
            raise ShortcodeError(f"`{name}` has no argument `{key}`"
                                 + (f"; {hint}" if hint else f"; its arguments: {', '.join(known) or 'none'}"))
    kwargs: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.name not in raw_args:
            if parameter.default is inspect.Parameter.empty:
                raise ShortcodeError(f"`{name}` needs the argument `{parameter.name}=…`")
            continue
        kwargs[parameter.name] = _convert(name, parameter, raw_args[parameter.name])
    return function(ctx, **kwargs)


def _convert(name: str, parameter: inspect.Parameter, raw: str) -> Any:
    kind = parameter.annotation
    try:
        if kind in (int, "int"):
            return int(raw)
        if kind in (float, "float"):
            return float(raw)
    except ValueError:
        raise ShortcodeError(f"`{name}`: `{parameter.name}` must be a number, got `{raw}`") from None
    return raw


def _evaluate_rule(state: StateCore) -> None:
    ctx: ShortcodeContext | None = state.env.get("shortcodes")
    problems: Problems | None = state.env.get("problems")
    source: Path = state.env.get("source", Path("?"))
    base_line: int = state.env.get("line", 1)
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        for child in block.children:
            if child.type != "shortcode":
                continue
            line = base_line + (block.map[0] if block.map else 0)
            try:
                if ctx is None:
                    raise ShortcodeError("shortcodes are not available here")
                child.content = evaluate(child.content, ctx)
            except ShortcodeError as exc:
                if problems is None:
                    raise
                problems.error(source, line, 1, f"shortcode {child.meta['source']}: {exc}",
                               "see the list of shortcodes in README.md")
                child.content = child.meta["source"]


def _render_shortcode(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
    from markdown_it.common.utils import escapeHtml
    return escapeHtml(tokens[idx].content)


def shortcodes_plugin(md: MarkdownIt) -> None:
    """Plug shortcodes into a markdown-it parser."""
    md.inline.ruler.before("escape", "shortcode", _shortcode_rule)
    md.core.ruler.after("inline", "shortcode_evaluate", _evaluate_rule)
    md.add_render_rule("shortcode", _render_shortcode)
