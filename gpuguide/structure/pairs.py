"""Pairs of GPUs: which pairs a buyer weighs against each other, and which GPU is another's closest
alternative. The comparison pages, the sitemap, the use-case pages' links and the "compare two
GPUs" form all ask this module, so the rule is stated once.

**The rule.** Two GPUs are weighed against each other when the larger memory is at most
``MEMORY_FACTOR`` (3) times the smaller. Memory decides which jobs a GPU can take at all (the model
that trains or serves, the scene that renders): within a factor of three the same jobs fit both, or
nearly, and the choice is one of speed and price (H100 SXM against H200, RTX 4090 against RTX 5090,
L40S against A100). Beyond it the larger GPU runs jobs the smaller cannot hold and the smaller costs
a fraction of it: they are different classes of GPU (a 24 GB inference card against a 288 GB training
GPU), a comparison no buyer makes. Every pair still has its page, reachable from the form; only the
weighed ones are indexed, listed in the sitemap and linked from the site's lists.

**Closeness.** Among the GPUs a buyer weighs against one, the closest alternative has the nearest
memory (the ratio of the larger to the smaller), then the nearest memory bandwidth, then comes
first in the catalogue: the card the same jobs fit and that runs them at the most similar speed.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

from gpuguide.structure.gpu_specs import Gpu

#: Two GPUs are weighed against each other when the larger memory is at most this many times the smaller.
MEMORY_FACTOR = 3

#: At most this many pairs a use-case page links to (``relevant_pairs``).
USE_CASE_PAIR_LINKS = 6


def gpu_pairs(gpu_ids: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair of GPUs once, the first in the given (catalogue) order: n·(n−1)/2 pairs.

    >>> gpu_pairs(["b300", "h200", "l4"])
    [('b300', 'h200'), ('b300', 'l4'), ('h200', 'l4')]
    """
    return list(itertools.combinations(gpu_ids, 2))


@functools.lru_cache(maxsize=4096)  # a site asks for each pair's ratio from several pages and lists
def _ratio(a: float | None, b: float | None) -> Fraction | float:
    """The larger of two figures over the smaller, exact; infinite when either is missing."""
    if a is None or b is None:
        return math.inf
    first, second = Fraction(str(a)), Fraction(str(b))
    return max(first, second) / min(first, second)


def memory_ratio(a: Gpu, b: Gpu) -> Fraction:
    """The larger memory over the smaller: 1 for two 80 GB GPUs, 12 for 288 GB against 24 GB."""
    ratio = _ratio(a.memory_gb, b.memory_gb)
    assert isinstance(ratio, Fraction)  # memory is always given
    return ratio


def weighed(a: Gpu, b: Gpu) -> bool:
    """Whether a buyer weighs these two GPUs against each other: the larger memory is at most
    ``MEMORY_FACTOR`` times the smaller (the module's docstring says why)."""
    return memory_ratio(a, b) <= MEMORY_FACTOR


def closeness(a: Gpu, b: Gpu) -> tuple[Fraction, Fraction | float]:
    """How far apart two GPUs are, nearest first: their memory ratio, then their bandwidth ratio."""
    return memory_ratio(a, b), _ratio(a.bandwidth_gbs, b.bandwidth_gbs)


def closest_alternative(gpu: Gpu, catalogue: Iterable[Gpu]) -> Gpu | None:
    """The GPU of ``catalogue`` (in catalogue order) a buyer weighs against ``gpu`` and that is
    closest to it; None when no other GPU is weighed against it."""
    candidates = [(closeness(gpu, other), index, other) for index, other in enumerate(catalogue)
                  if other.id != gpu.id and weighed(gpu, other)]
    return min(candidates, key=lambda item: (item[0], item[1]))[2] if candidates else None


def relevant_pairs(gpus: Sequence[Gpu], order: Sequence[str], limit: int = USE_CASE_PAIR_LINKS) -> list[tuple[Gpu, Gpu]]:
    """The pairs worth linking among ``gpus`` (a use-case page's own GPUs): each GPU with its
    closest alternative among them, each pair once, the closest pairs first, at most ``limit``.
    Each pair comes in catalogue order (``order``: the catalogue's ids), as its page's address does.
    """
    position = {gpu_id: index for index, gpu_id in enumerate(order)}
    found: dict[tuple[str, str], tuple[tuple[Fraction, Fraction | float], Gpu, Gpu]] = {}
    for gpu in gpus:
        other = closest_alternative(gpu, gpus)
        if other is None:
            continue
        first, second = sorted((gpu, other), key=lambda g: position[g.id])
        found.setdefault((first.id, second.id), (closeness(first, second), first, second))
    ranked = sorted(found.items(), key=lambda item: (item[1][0], position[item[0][0]], position[item[0][1]]))
    return [(first, second) for _, (_, first, second) in ranked[:limit]]
