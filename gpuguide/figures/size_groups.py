"""The size groups of language models: the parameter counts that bound them (``SIZE_BOUNDS``), a
model's group, the group's id in pages and its label in each language. The models' index
(``model_index``) and a model's intro (``model_intro``) name them.
"""

from __future__ import annotations

from gpuguide.figures import formatting
from gpuguide.structure.language import Language

#: The models' index groups language models by total parameters, between these bounds (a bound
#: belongs to the group below it): up to 10B, 10B to 40B, 40B to 100B, over 100B.
SIZE_BOUNDS: tuple[int, ...] = (10 * 10**9, 40 * 10**9, 100 * 10**9)


def size_group(parameters: int) -> int:
    """The index group of a model of ``parameters`` in total: 0 for the smallest.

    >>> [size_group(n) for n in (8_030_261_248, 10**10, 32_762_123_264, 70_553_706_496, 671 * 10**9)]
    [0, 0, 1, 2, 3]
    """
    return sum(parameters > bound for bound in SIZE_BOUNDS)


def size_group_key(group: int) -> str:
    """The group's id in pages: ``up-to-10b``, ``10b-to-40b``, ``over-100b``.

    >>> [size_group_key(group) for group in range(len(SIZE_BOUNDS) + 1)]
    ['up-to-10b', '10b-to-40b', '40b-to-100b', 'over-100b']
    """
    bounds = [f"{bound // 10**9}b" for bound in SIZE_BOUNDS]
    if group == 0:
        return f"up-to-{bounds[0]}"
    return f"over-{bounds[-1]}" if group == len(bounds) else f"{bounds[group - 1]}-to-{bounds[group]}"


#: Every size group's id in pages, smallest first.
SIZE_GROUP_KEYS: tuple[str, ...] = tuple(size_group_key(group) for group in range(len(SIZE_BOUNDS) + 1))


def size_group_label(group: int, language: Language, prefix: str = "size_group") -> str:
    """``10B to 40B`` / ``de 10 Md à 40 Md``, as a sentence names the group; with ``prefix``
    ``models_group``, the index's heading: ``10B to 40B parameters``."""
    def text(bound: int) -> str:
        return formatting.billions(bound, language.locale)
    if group == 0:
        return language.ui(f"{prefix}_up_to", upper=text(SIZE_BOUNDS[0]))
    if group == len(SIZE_BOUNDS):
        return language.ui(f"{prefix}_over", lower=text(SIZE_BOUNDS[-1]))
    return language.ui(f"{prefix}_between", lower=text(SIZE_BOUNDS[group - 1]), upper=text(SIZE_BOUNDS[group]))
