"""Locale formatting: the exact strings the reference page shows, with the spaces CLDR gives.

Expected French strings are the seed's (shared/seeds/000_baa267abb4623a1f.txt) with CLDR's
no-break spaces: U+202F in digit groups and before units, U+00A0 before currency and suffixes.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuguide.figures import formatting

FR, EN = "fr_FR", "en_US"


@pytest.mark.parametrize(("function", "value", "french", "english"), [
    (formatting.memory_gb, 288, "288\u202fGo", "288 GB"),
    (formatting.bandwidth_gbs, 6000, "6\u202f000\u202fGo/s", "6,000 GB/s"),
    (formatting.tflops, 1307, "1\u202f307\u202fTFLOPS", "1,307 TFLOPS"),
    (formatting.tflops, 1307.4, "1\u202f307\u202fTFLOPS", "1,307 TFLOPS"),
    (formatting.approx_params, 10 * 10**9, "≈\u00a010\u00a0Md", "≈\u00a010B"),
    (formatting.approx_params, 110 * 10**9, "≈\u00a0110\u00a0Md", "≈\u00a0110B"),
    (formatting.approx_params, 760 * 10**6, "≈\u00a0760\u00a0M", "≈\u00a0760M"),
    (formatting.approx_params, 0, "<\u00a01\u00a0M", "<\u00a01M"),
    (formatting.usd, 8.99, "8,99\u00a0$US", "$8.99"),
    (formatting.percent, 0.8, "80\u00a0%", "80%"),
])
def test_exact_strings_in_both_languages(function, value, french, english):
    assert function(value, FR) == french
    assert function(value, EN) == english


@pytest.mark.parametrize(("value", "expected"), [(989, "989 TFLOPS"), (82.6, "82.6 TFLOPS"),
                                                  (1.29, "1.29 TFLOPS"), (19.5, "19.5 TFLOPS")])
def test_tflops_keeps_three_significant_figures(value, expected):
    assert formatting.tflops(value, EN) == expected


@given(st.integers(min_value=0, max_value=10**15))
def test_every_parameter_count_formats_in_both_languages(value):
    for locale in (FR, EN):
        text = formatting.approx_params(value, locale)
        assert text.startswith(("≈\u00a0", "<\u00a0"))
        assert any(char.isdigit() for char in text)


@given(st.decimals(min_value="0.01", max_value="99999", places=2))
def test_prices_round_trip_to_the_cent(value):
    english = formatting.usd(float(value), EN)
    assert english.startswith("$")
    assert float(english[1:].replace(",", "")) == float(value)


FLOAT_FORMATTERS = [formatting.memory_gb, formatting.bandwidth_gbs, formatting.tflops, formatting.usd,
                    formatting.percent, formatting.ratio, formatting.plain_number]
INT_FORMATTERS = [formatting.approx_params, formatting.watts, formatting.whole_number, formatting.billions]
positive_floats = st.floats(min_value=1e-9, max_value=1e15, allow_nan=False, allow_infinity=False)


@given(positive_floats)
def test_float_formatters_never_crash_and_are_stable(value):
    """Any positive figure prints, with a digit, the same way every time, in both languages."""
    for locale in (FR, EN):
        for function in FLOAT_FORMATTERS:
            first = function(value, locale)
            function.cache_clear()
            assert function(value, locale) == first
            assert isinstance(first, str) and any(char.isdigit() for char in first)


@given(st.integers(min_value=1, max_value=10**15))
def test_integer_formatters_never_crash_and_are_stable(value):
    for locale in (FR, EN):
        for function in INT_FORMATTERS:
            first = function(value, locale)
            function.cache_clear()
            assert function(value, locale) == first
            assert any(char.isdigit() for char in first)


@given(st.integers(min_value=0, max_value=10**6))
def test_spelled_out_numbers_never_crash(value):
    for locale in (FR, EN):
        assert formatting.spelled_out(value, locale) == formatting.spelled_out(value, locale) != ""
