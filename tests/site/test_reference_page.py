"""The LLM-training page, built from Markdown and data, against the reference page (the seed).

The seed (shared/seeds/000_baa267abb4623a1f.txt) is the page as a reader reads it, in French, with
plain spaces. Every one of its lines must be found in the built French page, and its table cell
for cell. The English table is checked against the same figures, translated by hand rules.
"""

from __future__ import annotations

import json
import re

import pytest

from sites import SEEDS

SEED = (SEEDS / "000_baa267abb4623a1f.txt").read_text(encoding="utf-8").splitlines()
FR_PAGE = "fr/entrainement-llm/index.html"
EN_PAGE = "en/llm-training/index.html"


def normalise(text: str) -> str:
    """Collapse every kind of space (U+00A0, U+202F, newlines) into one plain space."""
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u202f", " ")).strip()


def seed_table() -> list[list[str]]:
    rows = [line for line in SEED if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def page_table(soup) -> list[list[str]]:
    table = soup.select_one("table.gpu-table")
    return [[normalise(cell.get_text()) for cell in row.find_all(["th", "td"])]
            for row in table.find_all("tr")]


#: The seed's B300 and B200 rows print "Non publié" for bandwidth and BF16, read from NVIDIA's DGX
#: pages; the site prints the per-GPU figures of NVIDIA's HGX specifications (7.7 TB/s, 4.5 PFLOPS
#: BF16 with sparsity, 2,250 dense) instead, as its data now holds them. Every other cell is the seed's.
HGX_CELLS = {("B300Blackwell Ultra", 3): "7 700 Go/s", ("B300Blackwell Ultra", 4): "2 250 TFLOPS",
             ("B200Blackwell", 3): "7 700 Go/s", ("B200Blackwell", 4): "2 250 TFLOPS"}


def seed_table_with_hgx_figures() -> list[list[str]]:
    rows = seed_table()
    for row in rows:
        for column in range(len(row)):
            if (row[0], column) in HGX_CELLS:
                assert row[column] == "Non publié"  # the seed's own cell, replaced
                row[column] = HGX_CELLS[(row[0], column)]
    return rows


def test_french_table_matches_the_seed_cell_for_cell(read_page):
    expected = seed_table_with_hgx_figures()
    assert len(expected) == 10 and len(expected[0]) == 8  # header + 9 GPUs, 8 columns
    assert page_table(read_page(FR_PAGE)) == expected


def to_english(cell: str) -> str:
    """The seed's French figure written the English way (same data, English conventions)."""
    if cell == "Non publié":
        return "Not published"
    if match := re.fullmatch(r"dès (\d+),(\d+) \$US", cell):
        return f"from ${match[1]}.{match[2]}"
    if match := re.fullmatch(r"≈ (\d+) Md", cell):
        return f"≈ {match[1]}B"
    if match := re.fullmatch(r"([\d ]+) (Go/s|Go|TFLOPS)", cell):
        number = f"{int(match[1].replace(' ', '')):,}"
        return f"{number} {match[2].replace('Go', 'GB')}"
    return cell


def test_english_table_has_the_same_figures_in_english(read_page):
    expected_rows = [[to_english(cell) for cell in row] for row in seed_table_with_hgx_figures()[1:]]
    rows = page_table(read_page(EN_PAGE))
    assert rows[0] == ["GPU", "Memory", "Memory type", "Bandwidth", "BF16 tensor",
                       "Full training, 1 GPU", "Full training, 8 GPUs", "Price/h"]
    assert rows[1:] == expected_rows


def test_gpu_cells_show_the_model_with_its_architecture_under_it(read_page):
    cell = read_page(FR_PAGE).select_one("tbody tr th[scope=row]")
    assert cell.select_one(".gpu-name").get_text() == "B300"
    assert cell.select_one(".gpu-architecture").get_text() == "Blackwell Ultra"


def block_texts(soup) -> set[str]:
    blocks = soup.find_all(["h1", "h2", "h3", "p", "summary", "li", "caption"])
    return {normalise(block.get_text()) for block in blocks}


SEED_TABLE_OR_NOTE = re.compile(r"^(\||Caractéristiques du constructeur)")


def test_every_line_of_the_seed_is_on_the_french_page(read_page):
    texts = block_texts(read_page(FR_PAGE))
    missing = []
    for line in SEED:
        if SEED_TABLE_OR_NOTE.match(line):
            continue
        # The seed glues the catalogue link to the next heading; they are two blocks on the page.
        parts = (["Tous les modèles de GPU", line.removeprefix("Tous les modèles de GPU")]
                 if line.startswith("Tous les modèles de GPU") else [line.removeprefix("- ")])
        missing += [part for part in parts if normalise(part) not in texts]
    assert missing == []


def test_the_note_keeps_the_seed_sentences_and_adds_sharding_and_the_price_date(read_page):
    seed_note = normalise(next(line for line in SEED if line.startswith("Caractéristiques")))
    note = normalise(read_page(FR_PAGE).select_one(".table-note").get_text())
    for sentence in re.split(r"(?<=\.) ", seed_note):
        assert sentence.rstrip(".") in note
    assert "FSDP" in note and "ZeRO-3" in note
    assert "relevée le 29 novembre 2026" in note


def test_sections_come_in_the_seed_order(read_page):
    headings = [normalise(h.get_text()) for h in read_page(FR_PAGE).find_all(["h1", "h2"])]
    assert headings == [
        "GPU pour entraîner de grands modèles de langage",
        "GPU adaptés : entraînement de LLM",
        "Ce qui compte : entraînement de LLM",
        "Comparer des GPU : entraînement de LLM",
        "GPU pour entraîner de grands modèles de langage : questions fréquentes",
        "Soyez prêt le jour du lancement",
        "Vous avez des serveurs GPU ?",
        "Autres usages",
    ]


@pytest.mark.parametrize("relative", [FR_PAGE, EN_PAGE])
def test_faq_is_an_accordion_and_json_ld_with_the_same_four_questions(read_page, relative):
    soup = read_page(relative)
    questions = [normalise(s.get_text()) for s in soup.select(".faq details > summary")]
    assert len(questions) == 4
    scripts = [json.loads(script.string) for script in soup.find_all("script", type="application/ld+json")]
    faq_pages = [data for data in scripts if data["@type"] == "FAQPage"]
    assert len(faq_pages) == 1
    data = faq_pages[0]
    assert [normalise(q["name"]) for q in data["mainEntity"]] == questions
    answers = [normalise(d.select_one(".faq-answer").get_text()) for d in soup.select(".faq details")]
    assert [normalise(q["acceptedAnswer"]["text"]) for q in data["mainEntity"]] == answers


def test_table_is_accessible(read_page):
    soup = read_page(FR_PAGE)
    region = soup.select_one(".suitable-gpus [role=region]")
    caption = region.select_one("table > caption")
    assert region["tabindex"] == "0"
    assert region["aria-labelledby"] == caption["id"]
    assert all(th.get("scope") == "col" for th in region.select("thead th"))
    assert all(tr.find("th")["scope"] == "row" for tr in region.select("tbody tr"))


def test_pages_declare_their_language_and_link_to_each_other(read_page):
    french, english = read_page(FR_PAGE), read_page(EN_PAGE)
    assert french.html["lang"] == "fr" and english.html["lang"] == "en"
    assert french.select_one(".language-switcher a[hreflang=en]")["href"] == "../../en/llm-training/"
    assert english.select_one(".language-switcher a[hreflang=fr]")["href"] == "../../fr/entrainement-llm/"


def test_other_use_cases_are_listed_without_links_to_unbuilt_pages(read_page, built_site):
    items = read_page(FR_PAGE).select(".other-use-cases li")
    assert len(items) == 5
    for item in items:
        for link in item.find_all("a"):
            assert (built_site / "fr" / link["href"].removeprefix("../") / "index.html").exists()


def test_catalogue_is_plain_text_until_its_page_exists(read_page, built_site):
    paragraph = read_page(FR_PAGE).select_one(".catalogue-link")
    assert normalise(paragraph.get_text()) == "Tous les modèles de GPU"
    link = paragraph.find("a")
    assert link is None or (built_site / "fr" / link["href"].removeprefix("../")).exists()


def test_no_request_leaves_the_site(read_page):
    for relative in (FR_PAGE, EN_PAGE):
        soup = read_page(relative)
        # canonical and alternate links name addresses; they are not requests
        loaded = [tag for tag in soup.find_all(["link", "script", "img"])
                  if tag.name != "link" or {"stylesheet", "icon", "preload", "modulepreload"} & set(tag.get("rel", []))]
        for tag in loaded:
            address = tag.get("href") or tag.get("src") or ""
            assert not address.startswith(("http:", "https:", "//")), address
