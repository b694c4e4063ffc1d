"""``gpuguide.markdown.typography_rule``: the language's typography (``env["typography"]``) reaches every
piece of text a reader sees (paragraphs, emphasis, link text, headings, table cells) and never code,
link targets, titles or raw HTML; a line break typed before French punctuation becomes the no-break
space, so the punctuation never starts a line."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from gpuguide.markdown.parser import markdown_parser
from gpuguide.markdown.typography_rule import typography_plugin
from gpuguide.structure.typography import NBSP, NNBSP, french, plain


def _render(text: str, rule: object = french, html: bool = False) -> str:
    md = MarkdownIt("commonmark", {"html": html}).enable("table").use(typography_plugin)
    return md.render(text, {} if rule is None else {"typography": rule})


def _text(text: str, **options: object) -> str:
    return BeautifulSoup(_render(text, **options), "html.parser").get_text()


def test_french_spacing_in_a_paragraph() -> None:
    # The rule of structure.typography: U+202F before ; ! ?, U+00A0 before : and inside « ».
    assert _text("Quoi ? Oui ; non : « peut-être » !") == (
        f"Quoi{NNBSP}? Oui{NNBSP}; non{NBSP}: «{NBSP}peut-être{NBSP}»{NNBSP}!\n")


def test_punctuation_after_inline_markup_gets_its_space() -> None:
    soup = BeautifulSoup(_render("Le *H100* ? Le `H200` : oui. [Lequel](https://x.example) !"), "html.parser")
    assert soup.get_text() == f"Le H100{NNBSP}? Le H200{NBSP}: oui. Lequel{NNBSP}!\n"


def test_code_link_targets_and_titles_are_never_touched() -> None:
    soup = BeautifulSoup(_render('`a ? b : c` et [Quoi ?](https://x.example/?a=b "Titre ?")'), "html.parser")
    assert soup.find("code").get_text() == "a ? b : c"
    link = soup.find("a")
    assert link["href"] == "https://x.example/?a=b" and link["title"] == "Titre ?"
    assert link.get_text() == f"Quoi{NNBSP}?"


def test_code_blocks_are_never_touched() -> None:
    soup = BeautifulSoup(_render("```\nx = a ? b : c\n```\n\n    indented ? code\n"), "html.parser")
    assert [code.get_text() for code in soup.find_all("code")] == ["x = a ? b : c\n", "indented ? code\n"]


def test_raw_html_is_never_touched() -> None:
    # With raw HTML on (the site turns it off), the HTML itself keeps its characters; the text around it is typeset.
    soup = BeautifulSoup(_render('<abbr title="Quoi ?">Q</abbr> ?', html=True), "html.parser")
    assert soup.find("abbr")["title"] == "Quoi ?"
    assert soup.get_text() == f"Q{NNBSP}?\n"


def test_headings_list_items_quotes_and_table_cells_are_typeset() -> None:
    text = "## Mémoire : combien ?\n\n- Prix ?\n\n> Vraiment !\n\n| GPU ? | Prix : |\n|---|---|\n| H100 ; | 2 € ! |\n"
    soup = BeautifulSoup(_render(text), "html.parser")
    assert soup.find("h2").get_text() == f"Mémoire{NBSP}: combien{NNBSP}?"
    assert soup.find("li").get_text() == f"Prix{NNBSP}?"
    assert soup.find("blockquote").get_text().strip() == f"Vraiment{NNBSP}!"
    assert [cell.get_text() for cell in soup.find_all(["th", "td"])] == [
        f"GPU{NNBSP}?", f"Prix{NBSP}:", f"H100{NNBSP};", f"2 €{NNBSP}!"]


@pytest.mark.parametrize("mark, space", [("?", NNBSP), ("!", NNBSP), (";", NNBSP), (":", NBSP)])
def test_a_line_break_typed_before_the_punctuation_becomes_the_no_break_space(mark: str, space: str) -> None:
    html = _render(f"« Quoi\n{mark} fin")
    paragraph = BeautifulSoup(html, "html.parser").find("p").get_text()
    assert paragraph == f"«{NBSP}Quoi{space}{mark} fin"
    assert "\n" not in paragraph  # no line break left where the browser could wrap


def test_a_line_break_before_other_text_is_kept() -> None:
    assert BeautifulSoup(_render("Quoi\nmot ?"), "html.parser").find("p").get_text() == f"Quoi\nmot{NNBSP}?"


def test_already_typeset_punctuation_is_unchanged() -> None:
    written = f"Quoi{NNBSP}? Oui{NBSP}: non{NNBSP}; si{NNBSP}!"
    assert _text(written) == written + "\n"


def test_a_line_break_typed_before_a_closing_guillemet_gives_one_no_break_space() -> None:
    paragraph = BeautifulSoup(_render("« Quoi\n» fin"), "html.parser").find("p").get_text()
    assert paragraph == f"«{NBSP}Quoi{NBSP}» fin"


def test_guillemets_already_spaced_with_no_break_spaces_are_unchanged() -> None:
    written = f"«{NBSP}oui{NBSP}»"
    assert _text(written) == written + "\n"


def test_times_and_urls_written_without_a_space_are_unchanged() -> None:
    assert _text("À 10:30, voir https://example.com/a?b=c") == "À 10:30, voir https://example.com/a?b=c\n"


@pytest.mark.parametrize("rule", [plain, None])
def test_without_a_rule_or_with_the_plain_rule_the_text_is_as_written(rule: object) -> None:
    assert _render("What ? Yes : no\n? end", rule=rule) == "<p>What ? Yes : no\n? end</p>\n"


def test_any_rule_applies_to_text_only() -> None:
    # A rule that changes every letter shows exactly which tokens are text.
    soup = BeautifulSoup(_render("Some *text* `code` [link](https://example.com/path)", rule=str.upper),
                         "html.parser")
    assert soup.get_text() == "SOME TEXT code LINK\n"
    assert soup.find("a")["href"] == "https://example.com/path"


def test_a_break_before_punctuation_stays_a_break_when_the_rule_adds_no_space() -> None:
    # The break is only replaced by what the rule puts before the punctuation; upper-casing adds none.
    assert _render("a\n? b", rule=str.upper) == "<p>A\n? B</p>\n"


def test_in_the_site_parser_heading_ids_come_from_the_text_as_written() -> None:
    env = {"typography": french}
    md = markdown_parser()
    soup = BeautifulSoup(md.render("## Ce qui compte : entraînement ?\n", env), "html.parser")
    heading = soup.find("h2")
    assert heading["id"] == "ce-qui-compte-entrainement"
    assert heading.get_text() == f"Ce qui compte{NBSP}: entraînement{NNBSP}?"


def test_french_rule_is_the_one_used_by_the_plugin() -> None:
    # The plugin applies the rule it is given, not a copy of its own: same result as calling it.
    sentence = "Un : deux ; trois ! « quatre »"
    assert _text(sentence) == french(sentence) + "\n"
