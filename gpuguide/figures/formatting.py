"""Locale formatting of figures over Babel. Pure functions of (value, locale); memoised per locale.

Babel gives CLDR's spacing: French groups digits and separates units with U+202F and puts U+00A0
before currency symbols and compact suffixes. We keep what CLDR gives.
Words that are not CLDR data ("from", "not published") are UI strings, passed in by the caller.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal  # noqa: F401 (the doctests name both)
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from babel import Locale
from babel.lists import format_list
from babel.numbers import NumberPattern, format_compact_decimal, format_currency, format_decimal, format_percent, parse_pattern
from babel.units import format_compound_unit, format_unit

from gpuguide.structure.typography import NBSP, NNBSP  # noqa: F401 (the doctests and callers name both)


Number = int | float | Fraction | Decimal


def _decimal(value: Number) -> Decimal | int | float:
    """What Babel can format: an exact ``Fraction`` becomes a ``Decimal`` (28 significant digits)."""
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    return value


# Babel parses a locale's name and a number pattern at every call, and the memos above miss on
# figures no page before had (a comparison's ratios of its two GPUs' figures, 8 a page): both are
# parsed once here and handed to Babel parsed, as its functions accept them.
_locale = lru_cache(maxsize=16)(Locale.parse)
_pattern: Callable[[str], NumberPattern] = lru_cache(maxsize=64)(parse_pattern)


def _number(value: float | Decimal, pattern: str, locale: str) -> str:
    """``format_decimal`` with ``pattern``."""
    return format_decimal(value, format=_pattern(pattern), locale=_locale(locale))


@lru_cache(maxsize=4096)
def memory_gb(value: float, locale: str) -> str:
    """``288 Go`` / ``288 GB``."""
    return format_unit(_decimal(value), "digital-gigabyte", length="short", locale=locale)


@lru_cache(maxsize=4096)
def bandwidth_gbs(value: float, locale: str) -> str:
    """``6 000 Go/s`` / ``6,000 GB/s``."""
    text = format_compound_unit(_decimal(value), "gigabyte", denominator_unit="second", length="short", locale=locale)
    assert text is not None  # None only for units CLDR lacks
    return text


@lru_cache(maxsize=4096)
def tflops(value: float, locale: str) -> str:
    """``1 307 TFLOPS`` / ``1,307 TFLOPS`` (TFLOPS is not a CLDR unit; it is the same in both languages).

    Three significant figures are plenty for a throughput: whole TFLOPS from 100 up (AMD's
    1,307.4 prints as 1,307), one decimal from 10, two below.
    """
    pattern = "#,##0" if value >= 100 else "#,##0.#" if value >= 10 else "#,##0.##"
    return f"{_number(_decimal(value), pattern, locale)}{_unit_space(locale)}TFLOPS"


@lru_cache(maxsize=16)
def _unit_space(locale: str) -> str:
    """The space CLDR puts between a number and a unit in this locale (fr: U+202F, en: U+0020)."""
    return format_unit(1, "digital-gigabyte", length="short", locale=locale)[1]


@lru_cache(maxsize=4096)
def approx_params(value: int, locale: str) -> str:
    """A parameter count already rounded by ``rounding``: ``≈ 10 Md`` / ``≈ 10B``, ``≈ 760 M``.

    Zero means "below one million" (see ``rounding.round_down_readable``): ``< 1 M`` / ``< 1M``.
    """
    if value <= 0:
        return f"<{NBSP}{format_compact_decimal(10**6, locale=locale)}"
    return f"≈{NBSP}{format_compact_decimal(value, locale=locale, fraction_digits=1)}"


@lru_cache(maxsize=4096)
def usd(value: float, locale: str) -> str:
    """``8,99 $US`` / ``$8.99``."""
    return format_currency(_decimal(value), "USD", locale=locale)


def rate_digits(value: Number) -> Decimal:
    """The three significant digits a price per unit is printed with (``usd_rate``), as a number."""
    exact_value = _decimal(value)
    return Decimal(f"{Decimal(exact_value):.3g}") if exact_value else Decimal(0)


@lru_cache(maxsize=4096)
def usd_rate(value: Number, locale: str) -> str:
    """A price per unit, to three significant digits and at least cents: ``2,91 $US``, ``0,036 $US`` / ``$0.036``."""
    return format_currency(rate_digits(value), "USD", locale=locale, decimal_quantization=False)


@lru_cache(maxsize=256)
def percent(value: float, locale: str, digits: int = 0) -> str:
    """``80 %`` / ``80%``; ``digits`` decimals at most (``81,5 %``), with the locale's own pattern."""
    if not digits:
        return format_percent(value, locale=locale)
    rounded = Decimal(str(round(value, digits + 2))).normalize()
    return format_percent(rounded, locale=locale, decimal_quantization=False)


@lru_cache(maxsize=256)
def signed_percent(value: float, locale: str) -> str:
    """A difference, signed, one decimal at most: ``+10 %`` / ``−0,2 %`` (a true minus sign)."""
    text = percent(abs(value), locale, 1)
    return ("+" if value > 0 else "\u2212" if value < 0 else "") + text


@lru_cache(maxsize=4096)
def decimal(value: Number, locale: str) -> str:
    """A plain number, up to three decimals: ``2,2`` / ``0.65`` / ``8 192``."""
    return _number(_decimal(value), "#,##0.###", locale)


@lru_cache(maxsize=4096)
def watts(value: int, locale: str) -> str:
    """``700 W``."""
    return format_unit(value, "power-watt", length="short", locale=locale)


@lru_cache(maxsize=4096)
def whole_number(value: int, locale: str) -> str:
    """``1 307`` / ``1,307``."""
    return format_decimal(value, locale=_locale(locale))


@lru_cache(maxsize=4096)
def ratio(value: float, locale: str) -> str:
    """A ratio quoted in prose or in a comparison: one decimal (``3,2`` / ``3.2``), more when one
    decimal would read as 1 for a ratio that is not 1 (``1,02``), ``≈ 1`` within a thousandth."""
    for pattern in ("#,##0.#", "#,##0.0#", "#,##0.00#"):
        text = _number(value, pattern, locale)
        if value == 1 or _one(pattern, locale) != text:
            return text
    return f"≈{NBSP}1"


@lru_cache(maxsize=16)
def _one(pattern: str, locale: str) -> str:
    return _number(1, pattern, locale)


@lru_cache(maxsize=4096)
def billions(value: int, locale: str) -> str:
    """A model's parameter count as its publisher names it: ``671 Md`` / ``671B``, ``1,8 Md`` / ``1.8B``."""
    return format_compact_decimal(value, locale=locale, fraction_digits=1)


@lru_cache(maxsize=4096)
def plain_number(value: float, locale: str) -> str:
    """A number without unit, as a range's lower end: ``24``, ``1 307``."""
    return _number(_decimal(value), "#,##0.#", locale)


@lru_cache(maxsize=256)
def spelled_out(value: int, locale: str) -> str:
    """A small whole number in words: ``trois`` / ``three`` (num2words knows each language's rules)."""
    # Imported here: only the few pages that spell a number out need it.
    from num2words import num2words

    return num2words(value, lang=locale.split("_")[0])


def significant(value: Fraction, digits: int, rounding: str) -> Decimal:
    """``value`` to ``digits`` significant digits, rounded ``ROUND_CEILING`` or ``ROUND_FLOOR`` (a bound
    quoted this way keeps its side).

    >>> significant(Fraction(1, 3), 3, ROUND_CEILING), significant(Fraction(2000, 3), 3, ROUND_FLOOR)
    (Decimal('0.334'), Decimal('666'))
    >>> significant(Fraction(123456), 3, ROUND_FLOOR)
    Decimal('123000')
    """
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    if not exact:
        return Decimal(0)
    exponent = exact.adjusted() - digits + 1
    if exponent >= 0:
        return Decimal(int(exact.scaleb(-exponent).to_integral_value(rounding=rounding)) * 10**exponent)
    return exact.quantize(Decimal(1).scaleb(exponent), rounding=rounding)


def listing(items: list[str], locale: str, style: str = "standard") -> str:
    """``a, b et c`` / ``a, b, and c``: Babel's list pattern of the style (``unit``: the units' list,
    without a conjunction where the language has one), the standard one where the locale's data
    has none (Babel raises for ``unit`` in German or Spanish).

    >>> listing(["a", "b", "c"], "de_DE", "unit")
    'a, b und c'
    """
    try:
        return format_list(items, style=style, locale=locale)  # type: ignore[arg-type]
    except KeyError:
        return format_list(items, locale=locale)
