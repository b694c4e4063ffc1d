"""Rounding figures down for display: the readable ladder capacities are shown on
(``round_down_readable``, ``readable_step``) and significant digits for upper bounds
(``round_down_significant``). Rounding down keeps every figure shown on the safe side.
Pure functions, exact arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction  # noqa: F401 (the doctests name it)

from gpuguide.figures.sizing import GB, Real, exact


def round_down_readable(params: int) -> int:
    """Round a parameter count DOWN to a precision a reader can take in at a glance.

    Within each unit (millions below 10⁹, billions above):

    ========================  ================================  ==========================
    value                     precision                         examples (seed figures)
    ========================  ================================  ==========================
    1 to 10 units             whole units                       9.6 B → 9 B, 4.7 B → 4 B
    10 to 100 units           multiples of 5 units              14.4 B → 10 B, 76.8 B → 75 B
    100 units and more        two significant digits            115.2 B → 110 B, 102.4 B → 100 B
    below one million         0 (the page prints "< 1 M")
    ========================  ================================  ==========================

    This ladder reproduces all 18 training figures of the reference page
    (``shared/seeds/000_baa267abb4623a1f.txt``). Rounding down keeps every capacity shown on the
    safe side: the true capacity lies between the figure and the next step of the ladder.

    >>> [round_down_readable(int(x * 1e9)) // 10**9 for x in (4.7, 9.6, 14.4, 37.6, 76.8, 115.2)]
    [4, 9, 10, 35, 75, 110]
    >>> round_down_readable(764_000_000)
    760000000
    """
    if params < 0:
        raise ValueError("params must not be negative")
    if params < 10**6:
        return 0
    return params - params % readable_step(params)


def round_down_significant(value: Real, digits: int) -> int:
    """A positive figure rounded DOWN to ``digits`` significant digits, as a whole number: an upper
    bound quoted this way never overstates.

    >>> round_down_significant(Fraction(2_503_125, 10), 3), round_down_significant(98.7, 3), round_down_significant(7, 3)
    (250000, 98, 7)
    """
    whole = math.floor(exact(value))
    if whole <= 0:
        return 0
    step = 10 ** max(len(str(whole)) - digits, 0)
    return whole - whole % step


def readable_step(params: int) -> int:
    """The step of ``round_down_readable``'s ladder at ``params`` (≥ one million).

    A figure shown as ``round_down_readable(x)`` means x lies in [shown, shown + step).

    >>> readable_step(9_600_000_000) // 10**9, readable_step(76_800_000_000) // 10**9, readable_step(115 * 10**9) // 10**9
    (1, 5, 10)
    """
    unit = GB if params >= GB else 10**6
    if params >= 100 * unit:
        return 10 ** (len(str(params)) - 2)
    if params >= 10 * unit:
        return 5 * unit
    return unit
