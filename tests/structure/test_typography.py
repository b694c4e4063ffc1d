"""French spacing rules on plain text: the right no-break space before ; ! ? : and inside « »,
nothing touched where no space was typed (times, URLs), and the rules found by their site.yaml name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuguide.structure import typography
from gpuguide.structure.typography import NBSP, NNBSP, TYPOGRAPHY, french, plain


@pytest.mark.parametrize(("typed", "expected"), [
    # The module docstring: U+202F before ; ! ?, U+00A0 before :.
    ("Vraiment ?", f"Vraiment{NNBSP}?"),
    ("Oui !", f"Oui{NNBSP}!"),
    ("un ; deux", f"un{NNBSP}; deux"),
    ("Mémoire : 80 Go", f"Mémoire{NBSP}: 80 Go"),
    # Several spaces or a tab are one space to the editor: one no-break space.
    ("Vraiment   ?", f"Vraiment{NNBSP}?"),
    ("Mémoire\t:", f"Mémoire{NBSP}:"),
    # Guillemets get their space whether the editor typed one or not.
    ("« oui »", f"«{NBSP}oui{NBSP}»"),
    ("«oui»", f"«{NBSP}oui{NBSP}»"),
])
def test_french_puts_the_right_no_break_space(typed: str, expected: str):
    assert french(typed) == expected


@pytest.mark.parametrize("text", [
    "10:30",  # a time
    "https://example.com/a?b=c&d=e;f",  # a URL
    "Quoi?",  # no space typed: the rule only replaces spaces before punctuation
    "a\n?",  # a line break is not a space (the Markdown rule handles soft breaks)
    "Pas de ponctuation ici",
])
def test_french_leaves_text_without_a_typed_space_alone(text: str):
    assert french(text) == text


def test_a_no_break_space_already_before_punctuation_is_kept():
    # "an existing no-break space is kept": an editor's NBSP before ? is not doubled or replaced.
    assert french(f"Quoi{NBSP}?") == f"Quoi{NBSP}?"
    assert french(f"Quoi{NNBSP}?") == f"Quoi{NNBSP}?"


def test_a_no_break_space_already_inside_guillemets_is_kept():
    assert french(f"«{NBSP}peut-être{NBSP}»") == f"«{NBSP}peut-être{NBSP}»"


@given(st.text(alphabet=st.sampled_from(list("ab :;!?«»\t") + [NBSP, NNBSP]), max_size=30))
def test_french_spacing_only_changes_spaces(text: str):
    """Whatever the text, the rule never adds, drops or moves a letter or a punctuation mark."""
    spaces = {" ", "\t", NBSP, NNBSP}
    assert [c for c in french(text) if c not in spaces] == [c for c in text if c not in spaces]


def test_plain_is_the_identity_and_rules_are_found_by_their_site_yaml_name():
    text = "Really ? « yes » : 10:30"
    assert plain(text) == text
    assert TYPOGRAPHY["plain"] is plain and TYPOGRAPHY["french"] is french
    assert set(TYPOGRAPHY) == {"plain", "french"}


def test_a_very_long_run_of_spaces_is_one_space_and_is_read_once():
    # Every pattern starts only where a run of spaces starts: 20,000 spaces took the old patterns
    # seconds (each start in the run tried again), and a pasted page of blanks could hang a build.
    assert french("Quoi" + " " * 20_000 + "?") == f"Quoi{NNBSP}?"
    assert french("a" + " " * 20_000 + "b ?") == "a" + " " * 20_000 + f"b{NNBSP}?"  # a run before no punctuation
    assert french("« " + " " * 20_000 + "oui" + "\t" * 20_000 + "»") == f"«{NBSP}oui{NBSP}»"
    assert french(" " * 20_000 + "x") == " " * 20_000 + "x"  # no punctuation after the run: untouched


@given(st.text(alphabet=st.sampled_from(list("ab :;!?«»\t\n") + [NBSP, NNBSP]), max_size=40))
def test_french_gives_what_its_four_substitutions_give_in_turn(text: str):
    """The rule runs a substitution only where its character is: the same text as all four in turn."""
    every = typography._BEFORE_HIGH_PUNCTUATION.sub(NNBSP + r"\1", text)
    every = typography._BEFORE_COLON.sub(NBSP + ":", every)
    every = typography._AFTER_OPENING_GUILLEMET.sub("«" + NBSP, every)
    every = typography._BEFORE_CLOSING_GUILLEMET.sub(NBSP + "»", every)
    assert french.__wrapped__(text) == every
