"""The real site's model pages and their index: each page worth reading on its own (its memory, a
configuration, what sets it apart from the models it resembles), and the index by size, sortable."""

from __future__ import annotations

import difflib
import itertools
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from gpuguide.errors import Problems
from gpuguide.figures import model_relatives, size_groups
from gpuguide.structure.dataset import load_dataset

from sites import ROOT

FOLDERS = {"en": "en/models", "fr": "fr/modeles"}

#: The share of identical text two model pages of one language may have, measured by difflib's
#: ratio over their words (2 × matching words ÷ all words), tables (their captions included),
#: launch commands and scroll hints left out: the prose a reader reads. With one template sentence
#: per section and the name swapped, as before the pages said what sets each model apart, the
#: closest pair was at 98.8 % (English) and 99.1 % (French). The closest now are models the data
#: tells apart by one or two figures (Mistral Small 24B 2501 and 3.1 2503: the context; the
#: R1-Distill models, which list each other): 95.9 % and 96.3 %.
MAX_SHARED_TEXT = 0.97


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(ROOT / "data", Problems(ROOT))


@pytest.fixture(scope="module")
def model_pages(built_site: Path) -> dict[str, dict[str, BeautifulSoup]]:
    """Language → model id → its parsed page."""
    return {lang: {path.parent.name: BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")
                   for path in sorted((built_site / folder).glob("*/index.html"))}
            for lang, folder in FOLDERS.items()}


def text(tag) -> str:
    return " ".join(tag.get_text(" ").replace("\u00a0", " ").replace("\u202f", " ").split())


def rows(soup: BeautifulSoup, table_id: str) -> list:
    """The body rows of the table whose caption is ``<table_id>-caption`` (none without that table)."""
    caption = soup.find(id=f"{table_id}-caption")
    return caption.find_parent("table").select("tbody tr") if caption else []


def prose_words(soup: BeautifulSoup) -> list[str]:
    """The words of a model page's article, without its tables, launch commands and scroll hints."""
    article = BeautifulSoup(str(soup.select_one("article.model-page")), "lxml")
    for tag in article.select("table, .launch-command, details.launch-commands, .scroll-hint, script, template"):
        tag.decompose()
    return text(article).split()


def test_one_page_per_model_in_each_language(model_pages, dataset):
    every = set(dataset.llm_models) | set(dataset.diffusion_models)
    assert {lang: set(pages) for lang, pages in model_pages.items()} == {"en": every, "fr": every}


def test_every_model_page_shows_the_memory_it_needs_and_a_configuration(model_pages, dataset):
    for lang, pages in model_pages.items():
        for model_id, soup in pages.items():
            where = f"{lang} {model_id}"
            if model_id in dataset.llm_models:
                assert rows(soup, "memory-table"), where
                assert any(row.select("td[data-gpu][data-count]") for row in rows(soup, "cheapest-table")), where
                continue
            diffusion = dataset.diffusion_models[model_id]
            figures = [text(div.dd) for div in soup.select("#memory ~ dl.figures div, dl.figures div")
                       if div.dd and text(div.dd).endswith(("GB", "Go"))]
            if diffusion.memory_gb or diffusion.parameters:
                assert figures, where
                assert soup.select("#gpus ~ p.recommendation[data-gpu]") and rows(soup, "gpus-table"), where
            else:  # nothing on record to size it from: the page says so, and shows where it was measured
                assert not figures and any(row.select("[data-gpu]") for row in rows(soup, "generation-table")), where
    # FLUX.1 [dev]: no published figure; its 12B parameters, 2 bytes each in BF16 and 1 in FP8.
    flux = model_pages["en"]["flux-1-dev"]
    facts = {text(div.dt): text(div.dd) for div in flux.select("dl.figures div")}
    assert facts["Weights in BF16, estimated"] == "24 GB" and facts["Weights in FP8, estimated"] == "12 GB"
    assert "estimated from its 12B parameters" in text(flux.select_one("#memory").find_parent("section"))


def test_the_text_of_two_model_pages_differs(model_pages):
    closest = []
    for lang, pages in model_pages.items():
        words = {model_id: prose_words(soup) for model_id, soup in pages.items()}
        for a, b in itertools.combinations(sorted(words), 2):
            matcher = difflib.SequenceMatcher(None, words[a], words[b], autojunk=False)
            # The quick ratios bound the ratio from above: most pairs never need the full comparison.
            if matcher.real_quick_ratio() >= MAX_SHARED_TEXT and matcher.quick_ratio() >= MAX_SHARED_TEXT:
                closest.append((round(matcher.ratio(), 4), lang, a, b))
    assert [pair for pair in closest if pair[0] >= MAX_SHARED_TEXT] == []


def test_the_intro_says_what_sets_each_model_apart(model_pages):
    def intro(lang: str, model_id: str) -> str:
        return " ".join(text(p) for p in model_pages[lang][model_id].select(".intro p.model-summary"))

    # Two pages whose models the data holds the same: each names the other, and what still differs.
    v3, r1 = intro("en", "deepseek-v3"), intro("en", "deepseek-r1")
    assert "DeepSeek-R1 has the same parameter count, layers, attention, context and published format" in v3
    assert "DeepSeek-V3 has the same parameter count" in r1
    assert "MLPerf Inference publishes 7 results for it" in r1
    assert "MLPerf Inference publishes no result for it, but 7 for DeepSeek-R1" in v3
    assert "It belongs to the DeepSeek-R1 family, whose 6 other models on this site range from 1.8B to 70.6B" in r1
    assert "is a mixture of experts of 671B parameters, 37B of them read for each token" in v3
    assert "Its weights are published in FP8" in v3 and "Its latent attention caches 70,272 bytes per token" in v3
    # The Llama 70B models: the context sets Llama 3 apart, a family Llama 3.1, measurements Llama 2.
    assert "Its context stops at 8,192 tokens" in intro("en", "llama-3-70b")
    assert "It belongs to the Llama 3.1 family" in intro("en", "llama-3-1-70b")
    assert "family" not in intro("en", "llama-3-3-70b")
    assert "MLPerf Inference publishes 41 results for it" in intro("en", "llama-2-70b")
    assert ("MLPerf Inference publishes no result for it, but 41 for Meta Llama 2 70B, which has the same layers and "
            "KV cache.") in intro("en", "llama-3-3-70b")
    assert "Il lit jusqu’à 131 072 tokens de contexte." in intro("fr", "gpt-oss-20b")
    assert "12 de ses 24 couches gardent au plus 128 tokens dans le cache KV" in intro("fr", "gpt-oss-20b")


def differences(soup: BeautifulSoup) -> dict[str, tuple[str, str, list[str]]]:
    """Related model id → (its link, its relation, what differs)."""
    found = {}
    for item in soup.select("section.differences ul.relatives > li"):
        link = item.find("a")
        relation = text(item).removeprefix(text(link)).split(")")[0].strip(" (")
        found[item["data-model"]] = (link["href"], relation, [text(li) for li in item.select("ul > li")])
    return found


def test_pages_of_related_models_say_what_differs(model_pages, dataset):
    en, fr = model_pages["en"], model_pages["fr"]
    llama = differences(en["llama-3-3-70b"])
    assert list(llama) == ["llama-2-70b", "deepseek-r1-distill-llama-70b", "llama-3-70b", "llama-3-1-70b",
                           "qwen2-5-72b"]  # smallest first, then by name
    # Meta's announcements: Llama 3 on April 18, 2024, Llama 3.3 on December 6, 2024; each under its own licence.
    assert llama["llama-3-70b"] == ("../llama-3-70b/", "same layers and KV cache",
                                    ["8,192 tokens of context instead of 131,072",
                                     "licence: Llama 3 Community License instead of Llama 3.3 Community License",
                                     "released on April 18, 2024 instead of December 6, 2024"])
    assert llama["llama-3-1-70b"][2][0] == (
        "the same parameter count, layers, attention, context and published format: every memory figure and "
        "configuration on this page holds for it too")
    assert llama["llama-3-1-70b"][2][1:] == [
        "licence: Llama 3.1 Community License instead of Llama 3.3 Community License",
        "released on July 23, 2024 instead of December 6, 2024"]
    assert llama["llama-2-70b"][2] == ["69B parameters instead of 70.6B",
                                       "a vocabulary of 32,000 tokens instead of 128,256",
                                       "4,096 tokens of context instead of 131,072",
                                       "licence: Llama 2 Community License instead of Llama 3.3 Community License",
                                       "released on July 18, 2023 instead of December 6, 2024",  # Meta, Llama 2
                                       "139.4 GB for a chat instead of 143.9 GB",
                                       "41 published MLPerf results, none for this one"]
    assert "7 published MLPerf results, none for this one" in differences(en["deepseek-v3"])["deepseek-r1"][2]
    assert list(differences(en["qwen3-32b"])) == ["qwen3-30b-a3b", "deepseek-r1-distill-qwen-32b", "qwen3-235b-a22b"]
    gpt_oss = differences(en["gpt-oss-20b"])["gpt-oss-120b"]
    assert gpt_oss[1] == "gpt-oss family" and "116.8B parameters instead of 20.9B" in gpt_oss[2]
    assert differences(fr["gpt-oss-20b"])["gpt-oss-120b"][1] == "famille gpt-oss"
    # Every related model of the data is listed, on every page, in both languages.
    for lang, pages in model_pages.items():
        for model_id, llm in dataset.llm_models.items():
            listed = differences(pages[model_id])
            assert list(listed) == [other.id for other in model_relatives.related_models(llm, dataset)], (lang, model_id)
            assert all(found for _, _, found in listed.values())


def test_the_models_index_groups_by_size_and_sorts_by_any_column(built_site, dataset):
    for folder in FOLDERS.values():
        soup = BeautifulSoup((built_site / folder / "index.html").read_text(encoding="utf-8"), "lxml")
        groups = soup.select("#language-models ~ section.size-group, section.size-group")
        keys = [group["data-size"] for group in groups]
        assert keys == list(size_groups.SIZE_GROUP_KEYS)  # every group has a model today, smallest first
        seen = []
        for group in groups:
            table = group.select_one("table[data-sortable]")
            assert table is not None and table.caption["id"] == f"language-models-{group['data-size']}-caption"
            body = table.select("tbody tr")
            counts = [int(row.select("td")[1]["data-value"]) for row in body]
            names = [text(row.th) for row in body]
            assert [(count, name) for count, name in zip(counts, names)] == sorted(zip(counts, names))
            assert {size_groups.size_group(count) for count in counts} == {size_groups.SIZE_GROUP_KEYS.index(group["data-size"])}
            for row in body:
                cells = row.select("td")
                # Parameters, context and memory sort on their value; the rental on its hourly price.
                assert all(cells[index].has_attr("data-value") for index in (1, 3, 4))
                assert cells[5].has_attr("data-value") or "does-not-fit" in cells[5]["class"]
                llm = dataset.llm_models[row["data-model"]]
                assert bool(row.select(".cell-detail")) == bool(llm.active_parameters)
            seen += [row["data-model"] for row in body]
        assert sorted(seen) == sorted(dataset.llm_models)
