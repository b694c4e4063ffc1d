"""UI strings of one language: placeholders filled by name, CLDR plural forms, the language's
typography on the string as written, and errors that name the key and the file to fix."""

from __future__ import annotations

from fractions import Fraction

import pytest

from gpuguide.structure.language import (
    Language,
    MissingUiString,
    UnknownPlaceholder,
    make_language,
    placeholders,
)
from gpuguide.structure.typography import NBSP, NNBSP, french, plain

PLURAL = {"one": "{count} GPU", "other": "{count} GPU au total"}

FR = make_language("fr", "fr_FR", "french", {
    "language_name": "Français",
    "price_from": "dès {price}",
    "question": "{title} ?",
    "raw": "Filtrer : {query}",
    "gpus": PLURAL,
})
EN = make_language("en", "en_US", "plain", {
    "language_name": "English",
    "price_from": "from {price}",
    "gpus": {"one": "{count} GPU", "other": "{count} GPUs"},
})


@pytest.mark.parametrize(("text", "names"), [
    ("dès {price}/h", ["price"]),
    ("{a} et {b}, puis {a}", ["a", "b", "a"]),
    ("pas de champ", []),
    ("{{ littéral }}", []),  # doubled braces are literal text, not a placeholder
])
def test_placeholders_are_the_plain_names(text: str, names: list[str]):
    assert placeholders(text) == names


@pytest.mark.parametrize("text", ["{0}", "{}", "{a.b}", "{a[0]}", "{a:>3}", "{a!r}", "dès {price"])
def test_anything_but_a_plain_name_is_refused(text: str):
    # Attribute access or a format spec in a UI string would reach into Python objects.
    with pytest.raises(ValueError):
        placeholders(text)


def test_a_refused_placeholder_is_shown_with_the_form_to_use():
    with pytest.raises(ValueError, match=r"`\{price!r\}`: a placeholder is a plain name such as `\{price\}`"):
        placeholders("dès {price!r}")


def test_ui_fills_placeholders_by_name():
    assert EN.ui("price_from", price="$8.99") == "from $8.99"
    assert FR.ui("price_from", price="8,99 $US") == "dès 8,99 $US"


def test_typography_applies_to_the_string_as_written_not_to_the_values():
    # The string's own space before ? becomes U+202F; the value's " : " is the page's own, already typeset.
    assert FR.ui("question", title="GPU : le guide") == f"GPU : le guide{NNBSP}?"


def test_without_values_the_string_keeps_its_placeholders_for_the_browser():
    assert FR.ui("raw") == f"Filtrer{NBSP}: {{query}}"


@pytest.mark.parametrize(("count", "form"), [
    (0, "one"), (1, "one"), (0.65, "one"), (Fraction(1, 2), "one"),  # French: i = 0 or 1 is "one"
    (2, "other"), (1000, "other"),
])
def test_french_plural_forms_follow_cldr(count, form: str):
    assert FR.ui("gpus", count=count) == PLURAL[form].format(count=count)


@pytest.mark.parametrize(("count", "text"), [(1, "1 GPU"), (0, "0 GPUs"), (2, "2 GPUs"), (-1, "-1 GPU")])
def test_english_has_one_only_for_one(count, text: str):
    # abs(): a negative difference takes the form of its size.
    assert EN.ui("gpus", count=count) == text


def test_a_plural_form_the_string_does_not_give_falls_back_to_other():
    # CLDR French has "many" for a million; the string gives only one and other.
    assert FR.ui("gpus", count=1_000_000) == "1000000 GPU au total"


def test_a_missing_key_names_the_key_and_the_file_with_no_fallback():
    with pytest.raises(MissingUiString) as missing:
        FR.ui("no_such_key")
    assert str(missing.value) == "missing UI string `no_such_key` in data/ui/fr.yaml"
    assert (missing.value.lang, missing.value.key) == ("fr", "no_such_key")


def test_a_placeholder_not_filled_names_it_and_what_is_filled():
    with pytest.raises(UnknownPlaceholder) as unknown:
        EN.ui("price_from", cost="$1", date="today")
    assert str(unknown.value) == ("the UI string `price_from` uses `{price}`, which is not filled here "
                                  "(placeholders: {cost}, {date})")
    assert unknown.value.name == "price"


def test_a_plural_string_without_a_count_asks_for_count():
    with pytest.raises(UnknownPlaceholder) as unknown:
        EN.ui("gpus", number=3)
    assert unknown.value.name == "count" and "(placeholders: {number})" in str(unknown.value)
    with pytest.raises(UnknownPlaceholder):
        EN.ui("gpus", count="3")  # text is no count: the form cannot be chosen


def test_name_is_the_language_name_string():
    assert FR.name == "Français" and EN.name == "English"


def test_make_language_picks_the_typography_by_name_and_languages_compare_by_code_and_locale():
    assert FR.typography is french and EN.typography is plain
    # Strings and typography do not take part in equality: one language is one code and locale.
    assert make_language("fr", "fr_FR", "plain", {}) == FR
    assert make_language("fr", "fr_CA", "french", {}) != FR
    with pytest.raises(KeyError):
        make_language("de", "de_DE", "german", {})
    assert isinstance(FR, Language)
