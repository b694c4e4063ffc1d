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
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from . import formatting, sizing
from .datasets import Dataset, Gpu, LlmModel
from .errors import Problems, did_you_mean
from .strings import UiText

if TYPE_CHECKING:
    from .tables import Column


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


SHORTCODES: dict[str, Callable[..., Any]] = {}
BLOCK_SHORTCODES: set[str] = set()


@dataclass(frozen=True)
class BlockTable:
    """What a block shortcode returns: a table the renderer prints in a scroll region."""

    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def shortcode(function: Callable[..., str]) -> Callable[..., str]:
    """Register an inline shortcode: its text goes where it is written."""
    SHORTCODES[function.__name__] = function
    return function


def block_shortcode(function: Callable[..., BlockTable]) -> Callable[..., BlockTable]:
    """Register a block shortcode: written alone in its paragraph, it becomes a table."""
    SHORTCODES[function.__name__] = function
    BLOCK_SHORTCODES.add(function.__name__)
    return function


def _gpu(ctx: ShortcodeContext, gpu_id: str) -> "Gpu":
    if gpu_id not in ctx.dataset.gpus:
        hint = did_you_mean(gpu_id, ctx.dataset.gpus)
        raise ShortcodeError(f"unknown GPU `{gpu_id}`" + (f"; {hint}" if hint else "; use an id from data/gpus.yaml"))
    return ctx.dataset.gpus[gpu_id]


def _llm(ctx: ShortcodeContext, model: str) -> "LlmModel":
    if model not in ctx.dataset.llm_models:
        hint = did_you_mean(model, ctx.dataset.llm_models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an id from data/models.yaml"))
    return ctx.dataset.llm_models[model]


def _column(column: str) -> "Column":
    from .tables import COLUMNS

    if column not in COLUMNS:
        hint = did_you_mean(column, COLUMNS)
        raise ShortcodeError(f"unknown column `{column}`" + (f"; {hint}" if hint else ""))
    return COLUMNS[column]


def _precision(precision: str, allowed: tuple[str, ...] = ("bf16", "fp8", "int4")) -> str:
    if precision not in allowed:
        raise ShortcodeError(f"unknown precision `{precision}`; use one of: {', '.join(allowed)}")
    return precision


@shortcode
def usable_memory_share(ctx: ShortcodeContext) -> str:
    """The share of GPU memory the sizing counts on: ``80 %`` / ``80%``."""
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), ctx.locale)


@shortcode
def gpu_figure(ctx: ShortcodeContext, gpu: str, column: str) -> str:
    """What a table cell shows for ``gpu`` in ``column``: ``{{ gpu_figure gpu=h100-sxm column=train_8gpu }}``."""
    record = _gpu(ctx, gpu)
    spec = _column(column)
    value = spec.value(record, ctx.dataset.price(gpu))
    return ctx.ui(spec.missing_key) if value is None else spec.format(value, ctx.locale, ctx.ui)


@shortcode
def ratio(ctx: ShortcodeContext, a: str, b: str, column: str, style: str = "number") -> str:
    """``a``'s figure divided by ``b``'s: ``{{ ratio a=h100-sxm b=a100-sxm column=bf16 }}`` → ``3,2``.

    ``style=words`` rounds to the nearest whole number and spells it: ``trois`` / ``three``
    (for "about three times …").
    """
    if style not in ("number", "words"):
        raise ShortcodeError(f"unknown style `{style}`; use `number` or `words`")
    spec = _column(column)
    value_a = spec.value(_gpu(ctx, a), ctx.dataset.price(a))
    value_b = spec.value(_gpu(ctx, b), ctx.dataset.price(b))
    if isinstance(value_a, (bool, str)) or isinstance(value_b, (bool, str)):
        raise ShortcodeError(f"column `{column}` is not a number; use a figure such as bf16 or memory")
    result = sizing.spec_ratio(value_a, value_b)
    if result is None:
        return ctx.ui("not_published")
    if style == "words":
        return formatting.spelled_out(round(result), ctx.locale)
    return formatting.ratio(float(result), ctx.locale)


@shortcode
def memory_range(ctx: ShortcodeContext, gpus: str) -> str:
    """The smallest to the largest memory among ``gpus``: ``{{ memory_range gpus="rtx-4090,rtx-5090" }}``
    → ``24 à 32 Go`` / ``24 to 32 GB``."""
    ids = [gpu.strip() for gpu in gpus.split(",") if gpu.strip()]
    if len(ids) < 2:
        raise ShortcodeError("`gpus` lists at least two GPU ids separated by commas")
    memories = sorted(_gpu(ctx, gpu_id).memory_gb for gpu_id in ids)
    low, high = memories[0], memories[-1]
    return ctx.ui("memory_range", low=formatting.plain_number(low, ctx.locale),
                  high=formatting.memory_gb(high, ctx.locale))


@shortcode
def full_training_bytes_per_param(ctx: ShortcodeContext) -> str:
    """Bytes per parameter of mixed-precision Adam training: ``16``."""
    return formatting.whole_number(sizing.FULL_TRAINING_BYTES_PER_PARAM, ctx.locale)


@shortcode
def full_training_memory(ctx: ShortcodeContext, params: int) -> str:
    """Memory to fully train ``params`` parameters (16 bytes each), rounded DOWN to one significant
    figure, for a sentence such as "needs more than …".

    ``{{ full_training_memory params=7000000000 }}`` → ``100 Go`` (7 × 10⁹ × 16 = 112 GB).
    """
    if params <= 0:
        raise ShortcodeError("`params` must be a positive whole number of parameters, e.g. 7000000000")
    needed_gb = params * sizing.FULL_TRAINING_BYTES_PER_PARAM // sizing.GB
    if needed_gb < 1:
        raise ShortcodeError("that model needs less than 1 GB; quote a larger model")
    step = 10 ** (len(str(needed_gb)) - 1)
    return formatting.memory_gb(needed_gb - needed_gb % step, ctx.locale)


@shortcode
def model_memory(ctx: ShortcodeContext, model: str, precision: str, context: int) -> str:
    """Memory to serve ``model`` at ``precision`` with ``context`` tokens (weights + KV cache), rounded UP.

    ``{{ model_memory model=llama-3-1-70b precision=bf16 context=8192 }}``
    """
    llm = _llm(ctx, model)
    if context <= 0:
        raise ShortcodeError("`context` must be a positive number of tokens, e.g. 8192")
    needed = sizing.inference_memory_bytes(llm.parameters, _precision(precision), context, llm.layers,
                                           llm.kv_heads, llm.head_dim, llm.kv_compressed_dim)
    return formatting.memory_gb(math.ceil(needed / sizing.GB), ctx.locale)


@shortcode
def decode_upper_bound(ctx: ShortcodeContext, gpu: str, model: str, precision: str) -> str:
    """Upper bound of single-stream decoding speed: ``≤ 208 tokens/s``."""
    record, llm = _gpu(ctx, gpu), _llm(ctx, model)
    bound = sizing.decode_tokens_per_second_upper_bound(
        record.bandwidth_gbs, llm.active_parameters or llm.parameters, _precision(precision))
    if bound is None:
        return ctx.ui("not_published")
    return ctx.ui("tokens_per_second_upper_bound", value=formatting.whole_number(int(bound), ctx.locale))


@shortcode
def diffusion_memory(ctx: ShortcodeContext, model: str, precision: str) -> str:
    """The memory a diffusion model's publisher documents: ``{{ diffusion_memory model=sd35-large precision=bf16 }}``."""
    models = ctx.dataset.diffusion_models
    if model not in models:
        hint = did_you_mean(model, models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an id from data/models.yaml"))
    value = models[model].memory_gb.get(_precision(precision, ("bf16", "fp8")))
    return ctx.ui("not_published") if value is None else formatting.memory_gb(value, ctx.locale)


@block_shortcode
def llm_requirements_table(ctx: ShortcodeContext, models: str, precision: str, context: int) -> "BlockTable":
    """A table of LLMs: parameters, memory needed at ``precision`` and ``context``, cheapest rental.

    ``{{ llm_requirements_table models="llama-3-1-8b,llama-3-1-70b" precision=bf16 context=8192 }}``
    """
    _precision(precision)
    if context <= 0:
        raise ShortcodeError("`context` must be a positive number of tokens, e.g. 8192")
    ids = [model.strip() for model in models.split(",") if model.strip()]
    if not ids:
        raise ShortcodeError("`models` lists model ids separated by commas")
    memory = {gpu_id: gpu.memory_gb for gpu_id, gpu in ctx.dataset.gpus.items()}
    prices = {gpu_id: price.usd_per_gpu_hour for gpu_id, price in ctx.dataset.prices.items()}
    rows = []
    for model in ids:
        llm = _llm(ctx, model)
        needed = sizing.inference_memory_bytes(llm.parameters, precision, context, llm.layers, llm.kv_heads,
                                               llm.head_dim, llm.kv_compressed_dim)
        config = sizing.recommend_configuration(needed, memory, prices)
        if config is None:
            recommended = ctx.ui("no_configuration")
        else:
            recommended = ctx.ui("recommended_configuration", count=config.gpu_count,
                                 gpu=ctx.dataset.gpus[config.gpu_id].model,
                                 price=formatting.usd(float(config.usd_per_hour), ctx.locale))
        rows.append((llm.name, formatting.billions(llm.parameters, ctx.locale),
                     formatting.memory_gb(math.ceil(needed / sizing.GB), ctx.locale), recommended))
    headers = (ctx.ui("column_model"), ctx.ui("column_parameters"),
               ctx.ui("column_memory_needed", precision=precision.upper(),
                      context=formatting.whole_number(context, ctx.locale)),
               ctx.ui("column_recommended"))
    return BlockTable(ctx.ui("llm_requirements_caption", precision=precision.upper(),
                             context=formatting.whole_number(context, ctx.locale)), headers, tuple(rows))


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
    tokens = state.tokens
    for index, block in enumerate(tokens):
        if block.type != "inline" or not block.children:
            continue
        line = base_line + (block.map[0] if block.map else 0)
        shortcodes = [child for child in block.children if child.type == "shortcode"]
        alone = (len(block.children) == 1 and shortcodes and 0 < index < len(tokens) - 1
                 and tokens[index - 1].type == "paragraph_open")
        for child in shortcodes:
            try:
                if ctx is None:
                    raise ShortcodeError("shortcodes are not available here")
                name = _parse(child.content)[0]
                if name in BLOCK_SHORTCODES and not alone:
                    raise ShortcodeError(f"`{name}` makes a table: write it alone on its own line, "
                                         "with a blank line before and after")
                result = evaluate(child.content, ctx)
                if name in BLOCK_SHORTCODES:
                    # Replace the paragraph by the table: paragraph_open / inline / paragraph_close.
                    tokens[index - 1].hidden = tokens[index + 1].hidden = True
                    child.type, child.meta = "shortcode_table", {**child.meta, "table": result}
                else:
                    child.content = result
            except ShortcodeError as exc:
                if problems is None:
                    raise
                problems.error(source, line, 1, f"shortcode {child.meta['source']}: {exc}",
                               "see the list of shortcodes in README.md")
                child.content = child.meta["source"]


def _render_shortcode(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
    return escapeHtml(tokens[idx].content)


def _render_shortcode_table(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
    table: BlockTable = tokens[idx].meta["table"]
    env["table_count"] = env.get("table_count", 0) + 1
    caption_id = f"table-{env['table_count']}"
    head = "".join(f'<th scope="col">{escapeHtml(h)}</th>' for h in table.headers)
    body = "".join(
        "<tr>" + f'<th scope="row">{escapeHtml(row[0])}</th>'
        + "".join(f"<td>{escapeHtml(cell)}</td>" for cell in row[1:]) + "</tr>\n"
        for row in table.rows)
    return (f'<div class="table-scroll" role="region" tabindex="0" aria-labelledby="{caption_id}">\n'
            f'<table>\n<caption id="{caption_id}">{escapeHtml(table.caption)}</caption>\n'
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n</div>\n")


def shortcodes_plugin(md: MarkdownIt) -> None:
    """Plug shortcodes into a markdown-it parser."""
    md.inline.ruler.before("escape", "shortcode", _shortcode_rule)
    md.core.ruler.after("inline", "shortcode_evaluate", _evaluate_rule)
    md.add_render_rule("shortcode", _render_shortcode)
    md.add_render_rule("shortcode_table", _render_shortcode_table)
