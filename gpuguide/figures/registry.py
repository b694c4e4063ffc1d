"""The shortcode registry: what a shortcode function receives (``ShortcodeContext``), what a block
shortcode returns (``BlockTable`` of ``BlockCell``), and the decorators that register them.

The functions themselves live in ``prose`` (figures quoted in running text) and ``methodology``
(the tables of constants, formats and published figures); ``markdown.shortcodes`` calls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from gpuguide.errors import did_you_mean
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.language import Language


@dataclass(frozen=True)
class ShortcodeContext:
    dataset: Dataset
    language: Language

    @property
    def locale(self) -> str:
        return self.language.locale

    @property
    def ui(self) -> Any:
        return self.language.ui


class ShortcodeError(ValueError):
    """A shortcode was given a value it cannot use; the message says what would work."""


SHORTCODES: dict[str, Callable[..., Any]] = {}


BLOCK_SHORTCODES: set[str] = set()


@dataclass(frozen=True)
class BlockCell:
    """A cell of a block shortcode's table; ``data`` becomes ``data-*`` attributes (what tests and
    scripts read: the configuration a row recommends, the exact bytes a figure rounds)."""

    text: str
    data: tuple[tuple[str, str], ...] = ()
    href: str | None = None  # the cell is a link (an external source)
    page: tuple[str, str] | None = None  # the cell links to a page of the site: (layout, id), e.g. ("gpu", "h100-sxm")
    detail: str | None = None  # a second, smaller line (as a GPU's architecture under its name): no column of its own


@dataclass(frozen=True)
class BlockTable:
    """What a block shortcode returns: a table the renderer prints in a scroll region."""

    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[BlockCell, ...], ...]
    numeric: tuple[bool, ...] = ()  # per column: right-aligned figures


def shortcode(function: Callable[..., str]) -> Callable[..., str]:
    """Register an inline shortcode: its text goes where it is written."""
    SHORTCODES[function.__name__] = function
    return function


def block_shortcode(function: Callable[..., BlockTable]) -> Callable[..., BlockTable]:
    """Register a block shortcode: written alone in its paragraph, it becomes a table."""
    SHORTCODES[function.__name__] = function
    BLOCK_SHORTCODES.add(function.__name__)
    return function


def known_gpu(ctx: ShortcodeContext, gpu_id: str) -> Gpu:
    """The GPU ``gpu_id`` names; ShortcodeError with a suggestion when there is none."""
    if gpu_id not in ctx.dataset.gpus:
        hint = did_you_mean(gpu_id, ctx.dataset.gpus)
        raise ShortcodeError(f"unknown GPU `{gpu_id}`" + (f"; {hint}" if hint else "; use an id from data/gpus.yaml"))
    return ctx.dataset.gpus[gpu_id]


def known_llm(ctx: ShortcodeContext, model: str) -> LlmModel:
    """The language model ``model`` names; ShortcodeError with a suggestion when there is none."""
    if model not in ctx.dataset.llm_models:
        hint = did_you_mean(model, ctx.dataset.llm_models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an id from data/models.yaml"))
    return ctx.dataset.llm_models[model]
