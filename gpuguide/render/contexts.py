"""What each layout's template receives beyond what every page gets: one function per layout, in one registry.

Each function takes the ``PageInput`` of one page (``render.page_input``); they are grouped by the
pages they fill: ``render.use_case_contexts`` (home, use cases, guides), ``render.gpu_contexts``
(catalogue, GPUs, comparisons) and ``render.model_contexts`` (models). Which pages must exist is
declared in ``structure.page_types``; this registry says how each layout is filled.
"""

from __future__ import annotations

from collections.abc import Callable

from gpuguide.render.gpu_contexts import catalogue_context, comparison_context, comparisons_context, gpu_context
from gpuguide.render.model_contexts import model_context, models_context
from gpuguide.render.page_input import Context, PageInput
from gpuguide.render.use_case_contexts import guides_context, home_context, use_case_context
from gpuguide.structure.page_types import LAYOUTS


def call_to_action_state(given: PageInput) -> Context:
    """The marketplace's state (``market`` in data/site.yaml), which every layout receives: the call
    to action says the market opens soon or is open, and the price notes add, before the launch,
    that the offers can be rented from launch day. (A change of ``config`` rebuilds every page.)"""
    return {"market": given.dataset.config.market}


def _nothing(given: PageInput) -> Context:
    return {}


def _with_market_state(layout_context: Callable[[PageInput], Context]) -> Callable[[PageInput], Context]:
    """A layout's context function that also gives the marketplace's state (``call_to_action_state``)."""
    def context(given: PageInput) -> Context:
        return {**call_to_action_state(given), **layout_context(given)}
    context.__name__ = context.__qualname__ = layout_context.__name__
    context.__doc__ = layout_context.__doc__
    return context


#: Layout → what its template receives beyond the common context (and the market's state).
CONTEXTS: dict[str, Callable[[PageInput], Context]] = {layout: _with_market_state(function) for layout, function in {
    "home": home_context, "use_case": use_case_context, "catalogue": catalogue_context, "gpu": gpu_context,
    "comparisons": comparisons_context, "comparison": comparison_context, "models": models_context,
    "model": model_context, "guides": guides_context, "guide": _nothing, "methodology": _nothing,
    "search": _nothing, "not_found": _nothing,
}.items()}

assert set(CONTEXTS) == set(LAYOUTS), "every layout has a context function"
