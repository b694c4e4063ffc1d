"""The whole site: every page in both languages, links that resolve, figures that match the library."""

from __future__ import annotations

import posixpath
from fractions import Fraction
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from bs4 import BeautifulSoup

from gpuguide.figures import formatting

from gpuguide.figures import engine_budget, rounding, sizing
from gpuguide.figures.records import serving_gpu
from gpuguide.structure.dataset import load_dataset
from gpuguide.errors import Problems

from sites import ROOT


@pytest.fixture(scope="session")
def dataset():
    return load_dataset(ROOT / "data", Problems(ROOT))


@pytest.fixture(scope="session")
def pages(built_site: Path) -> dict[str, BeautifulSoup]:
    """Every built HTML page, parsed, by its path in site/."""
    return {path.relative_to(built_site).as_posix(): BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")
            for path in sorted(built_site.rglob("*.html"))}


def resolve(page_path: str, href: str) -> tuple[str, str]:
    """The site/ file a relative link points to, and its fragment."""
    parts = urlsplit(href)
    if parts.path.startswith("/"):
        target = posixpath.normpath(unquote(parts.path).lstrip("/") or ".")
    else:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page_path), unquote(parts.path))) \
            if parts.path else page_path
    if parts.path.endswith("/") or parts.path == "":
        target = posixpath.normpath(posixpath.join(target, "index.html")) if parts.path else target
    return target, unquote(parts.fragment)


def test_every_internal_link_and_anchor_resolves(pages, built_site):
    broken = []
    for path, soup in pages.items():
        for tag in soup.find_all(["a", "link", "img", "script"]):
            href = tag.get("href") or tag.get("src")
            if not href or urlsplit(href).scheme or href.startswith("//"):
                continue
            target, fragment = resolve(path, href)
            if not (built_site / target).is_file():
                broken.append(f"{path}: {href}")
            elif fragment and target in pages and not pages[target].find(id=fragment):
                broken.append(f"{path}: {href} (no such anchor)")
    assert broken == []


def is_redirect(soup) -> bool:
    """A pair's other order (``/en/compare/h100-sxm-vs-h200/``): a small page that sends the reader on."""
    return soup.select_one("meta[http-equiv=refresh]") is not None


def test_every_page_links_to_its_translation_and_back(pages):
    for path, soup in pages.items():
        if path in ("index.html", "404.html") or is_redirect(soup):  # the language chooser; a copy of fr/404/
            continue
        lang = soup.html["lang"]
        switches = soup.select(".language-switcher a[hreflang]")
        assert switches, f"{path} has no translation link"
        for link in switches:
            target, _ = resolve(path, link["href"])
            other = pages[target]
            assert other.html["lang"] == link["hreflang"] != lang
            back = [resolve(target, a["href"])[0] for a in other.select(f".language-switcher a[hreflang={lang}]")]
            assert back == [path], f"{target} does not link back to {path}"


def test_both_languages_have_the_same_number_of_pages(pages):
    french = [p for p in pages if p.startswith("fr/")]
    english = [p for p in pages if p.startswith("en/")]
    assert len(french) == len(english) > 0


def test_one_comparison_page_per_pair_of_gpus_the_indexed_ones_reachable_from_the_index(pages, dataset):
    n = len(dataset.gpus)
    for lang, folder, index in (("fr", "fr/comparer/", "fr/comparer/index.html"),
                                ("en", "en/compare/", "en/compare/index.html")):
        addresses = {p for p in pages if p.startswith(folder) and p != index}
        comparisons = {p for p in addresses if not is_redirect(pages[p])}
        assert len(comparisons) == n * (n - 1) // 2 == len(addresses) - len(comparisons)  # and the other orders
        linked = {resolve(index, a["href"])[0] for a in pages[index].select("main a")}
        indexed = {p for p in comparisons if not pages[p].select_one("meta[name=robots][content*=noindex]")}
        assert indexed and linked & comparisons == indexed  # the others: from the form (tests/site/test_comparisons.py)
    assert "fr/comparer/h100-sxm-vs-a100-sxm/index.html" in pages


def test_one_page_per_gpu_linked_from_the_catalogue(pages, dataset):
    catalogue = pages["fr/gpu/index.html"]
    linked = {resolve("fr/gpu/index.html", a["href"])[0] for a in catalogue.select("table a:not(.bid-link)")}  # bid links lead to the marketplace
    assert linked == {f"fr/gpu/{gpu_id}/index.html" for gpu_id in dataset.gpus}
    for gpu_id in dataset.gpus:
        assert f"en/gpus/{gpu_id}/index.html" in pages


def test_the_catalogue_groups_gpus_by_segment(pages, dataset):
    catalogue = pages["en/gpus/index.html"]
    for segment in ("data-centre", "workstation", "consumer"):
        rows = catalogue.select(f"#table-{segment} tbody tr")
        expected = [gpu_id for gpu_id, gpu in dataset.gpus.items() if gpu.segment == segment]
        assert [row["data-gpu"] for row in rows] == expected


def test_the_root_page_lets_the_reader_choose_a_language(pages):
    links = {a["hreflang"]: a["href"] for a in pages["index.html"].select("a[hreflang]")}
    assert links == {"fr": "fr/", "en": "en/"}


def text(tag) -> str:
    return " ".join(tag.get_text().replace("\u00a0", " ").replace("\u202f", " ").split())


def test_comparison_page_states_ratios(pages, dataset):
    soup = pages["en/compare/h100-sxm-vs-a100-sxm/index.html"]
    table = soup.find(id="specifications-caption").find_parent("table")
    rows = {text(tr.th): [text(td) for td in tr.find_all("td")] for tr in table.select("tbody tr")}
    # NVIDIA datasheets: H100 SXM 989 dense BF16 TFLOPS, A100 SXM 312: 989 / 312 = 3.17.
    assert rows["BF16 tensor"] == ["989 TFLOPS (better)", "312 TFLOPS", "× 3.2"]
    assert rows["Memory"] == ["80 GB", "80 GB", "same"]  # never "× 1"
    assert rows["Launch"][2] == ""  # a ratio of years means nothing
    # FP8: the A100 (Ampere) has no FP8 tensor cores: not supported, not "not published", and no ratio.
    assert rows["FP8 tensor"] == ["1,979 TFLOPS", "Not supported", ""]


def test_gpu_page_shows_what_it_can_do_for_each_use_case(pages, dataset):
    soup = pages["en/gpus/h100-sxm/index.html"]
    figures = {text(div.dt): text(div.dd) for div in soup.select("dl.figures div")}
    # Independent of the page: 80 GB × 80 % ÷ 16 bytes = 4.0B, × 8 = 32B → "≈ 30B".
    assert figures["Full training, 1 GPU"] == "≈ 4B"
    assert figures["Full training, 8 GPUs"] == "≈ 30B"


def test_hreflang_alternates_are_reciprocal_and_exist(pages, dataset):
    base = dataset.config.base_url.rstrip("/")
    for path, soup in pages.items():
        alternates = {link["hreflang"]: link["href"] for link in soup.select("link[rel=alternate][hreflang]")}
        if not alternates or path == "index.html":
            continue
        canonical = soup.select_one("link[rel=canonical]")["href"]
        assert alternates[soup.html["lang"]] == canonical
        assert alternates["x-default"] == base + "/"  # the root page, where a reader chooses a language
        for lang, address in alternates.items():
            if lang == "x-default":
                continue
            target = address.removeprefix(base).lstrip("/") + "index.html"
            assert target in pages, f"{path}: hreflang {lang} → {address} was not built"
            back = {link["hreflang"]: link["href"] for link in pages[target].select("link[rel=alternate][hreflang]")}
            assert back == alternates


def test_the_root_page_is_the_x_default_with_a_description_and_alternates(pages, dataset):
    base = dataset.config.base_url.rstrip("/")
    root = pages["index.html"]
    assert root.select_one("link[rel=canonical]")["href"] == base + "/"
    assert len(root.select_one("meta[name=description]")["content"]) > 50
    alternates = {link["hreflang"]: link["href"] for link in root.select("link[rel=alternate][hreflang]")}
    assert alternates == {"fr": base + "/fr/", "en": base + "/en/", "x-default": base + "/"}
    assert root.select_one("meta[property='og:image']")["content"] == base + "/og.png"


def test_sitemap_lists_every_indexable_page_and_the_root_with_their_alternates(pages, built_site, dataset):
    from lxml import etree

    tree = etree.parse(str(built_site / "sitemap.xml"))
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    base = dataset.config.base_url.rstrip("/")
    locations = tree.xpath("//s:url/s:loc/text()", namespaces=ns)
    assert locations[0] == base + "/"
    # Every page without `noindex` is listed; the search and "not found" pages are not.
    indexable = {p for p, soup in pages.items()
                 if p.endswith("index.html") and not soup.select_one("meta[name=robots][content*=noindex]")}
    assert {loc.removeprefix(base).lstrip("/") + "index.html" for loc in locations} == indexable
    assert not {"fr/recherche/index.html", "en/search/index.html", "fr/404/index.html"} & indexable
    for entry in tree.xpath("//s:url", namespaces=ns):
        links = {link.get("hreflang"): link.get("href") for link in entry.xpath("x:link", namespaces=ns)}
        assert links.get("x-default") == base + "/" and {"fr", "en"} <= set(links)
    robots = (built_site / "robots.txt").read_text()
    assert f"Sitemap: {base}/sitemap.xml" in robots


def test_search_pages_are_not_indexed(pages):
    for path in ("fr/recherche/index.html", "en/search/index.html"):
        assert pages[path].select_one("meta[name=robots]")["content"] == "noindex"
        assert not pages[path].select("link[rel=alternate][hreflang]")


def test_every_page_has_a_sharing_card_that_was_built(pages, built_site, dataset):
    from PIL import Image

    base = dataset.config.base_url.rstrip("/")
    for path, soup in pages.items():
        if path == "404.html" or is_redirect(soup):  # a redirect shares the card of the pair's page
            continue
        image = soup.select_one("meta[property='og:image']")["content"]
        assert soup.select_one("meta[name='twitter:card']")["content"] == "summary_large_image"
        assert soup.select_one("meta[property='og:image:alt']")["content"].startswith(
            soup.select_one("meta[property='og:title']")["content"].rstrip(".") if path != "index.html" else "")
        card = built_site / image.removeprefix(base + "/")
        assert card.is_file(), f"{path}: {image} was not published"
    with Image.open(built_site / "fr/gpu/h100-sxm/og.png") as card:
        assert card.size == (1200, 630)


def test_titles_and_descriptions_fit_search_engines(pages):
    for path, soup in pages.items():
        assert len(soup.title.get_text()) <= 60, path
        description = soup.select_one("meta[name=description]")
        assert description is not None and len(description["content"]) <= 160, path


def test_the_404_page_at_the_root_speaks_every_language(pages):
    page = pages["404.html"]
    assert page.select_one("meta[name=robots]")["content"] == "noindex"
    sections = {article["lang"]: article for article in page.select("article.not-found")}
    assert set(sections) == {"fr", "en"}
    assert text(sections["fr"].h1) == "Page introuvable" and text(sections["en"].h1) == "Page not found"
    for article in sections.values():  # served at any address: every link is site-absolute
        assert all(a["href"].startswith("/") for a in article.select("a"))


def test_every_table_has_a_caption_and_a_labelled_region(pages):
    tables = 0
    for path, soup in pages.items():
        for table in soup.select("main table"):
            tables += 1
            caption = table.caption
            assert caption is not None and text(caption), f"{path}: a table without a caption"
            region = table.find_parent("div", class_="table-scroll")
            assert region["role"] == "region" and region["tabindex"] == "0"
            assert region["aria-labelledby"] == caption["id"]
            hint = soup.find(id=region["aria-describedby"])
            assert "scroll-hint" in hint["class"] and hint.has_attr("data-pagefind-ignore")
    assert tables > 400


def test_calls_to_action_lead_to_the_addresses_of_site_yaml(pages, dataset):
    for lang, settings in dataset.config.languages.items():
        expected = {settings.sign_up_url, settings.providers_url}
        carrying = [(path, soup) for path, soup in pages.items() if path.startswith(f"{lang}/")
                    and soup.select(".call-to-action")]
        assert len(carrying) >= 8
        for path, soup in carrying:
            links = {a["href"] for a in soup.select(".call-to-action a")}
            assert links == expected, path
            assert all(len(section.select("a[href]")) == 1 for section in soup.select(".call-to-action"))


def test_use_case_tables_match_the_sizing_library(pages, dataset):
    """Recompute a sample of every use-case table through the sizing library, not through the page."""
    def params(value):
        return formatting.approx_params(rounding.round_down_readable(value), "en_US")

    def fp64(gpu):
        if gpu.fp64_tflops:
            return formatting.tflops(gpu.fp64_tflops, "en_US")
        if gpu.fp64_ratio_of_fp32:  # the Ada and GA102 whitepapers: "1/64th the TFLOP rate of FP32"
            derived = Fraction(str(gpu.fp32_tflops)) * Fraction(gpu.fp64_ratio_of_fp32)
            return f"{formatting.tflops(derived, 'en_US')} ({gpu.fp64_ratio_of_fp32} of FP32)"
        return "Not published"

    checks = {
        "train_8gpu": lambda gpu: params(sizing.training_capacity_params(gpu.memory_gb, "full", 8)),
        "lora_1gpu": lambda gpu: params(sizing.training_capacity_params(gpu.memory_gb, "lora")),
        "qlora_1gpu": lambda gpu: params(sizing.training_capacity_params(gpu.memory_gb, "qlora")),
        "infer_int4_1gpu": lambda gpu: params(engine_budget.serving_capacity_params(serving_gpu(gpu, None), "int4")),
        "infer_bf16_8gpu": lambda gpu: params(engine_budget.serving_capacity_params(serving_gpu(gpu, None), "bf16", 8)) + (
            ", over PCIe" if gpu.interconnect.gpus < 8 else ""),
        "fp64": fp64,
        "memory": lambda gpu: formatting.memory_gb(gpu.memory_gb, "en_US"),
    }
    seen = set()
    for path in ("en/llm-training/", "en/fine-tuning/", "en/llm-inference/", "en/scientific-computing/",
                 "en/3d-rendering-vfx/", "en/image-video-generation/"):
        soup = pages[path + "index.html"]
        headers = [th.get("data-column") for th in soup.select("#gpu-table thead th")]
        for row in soup.select("#gpu-table tbody tr"):
            gpu = dataset.gpus[row["data-gpu"]]
            cells = row.find_all(["th", "td"])
            for column, check in checks.items():
                if column in headers:
                    assert text(cells[headers.index(column)]) == text(BeautifulSoup(check(gpu), "lxml")), \
                        f"{path} {gpu.id} {column}"
                    seen.add(column)
    assert seen == set(checks)


def test_decode_column_is_the_bandwidth_bound(pages, dataset):
    soup = pages["en/llm-inference/index.html"]
    headers = [th.get("data-column") for th in soup.select("#gpu-table thead th")]
    column = headers.index("decode_upper_bound:llama-3-1-8b:bf16")
    llama = dataset.llm_models["llama-3-1-8b"]
    for row in soup.select("#gpu-table tbody tr"):
        gpu = dataset.gpus[row["data-gpu"]]
        cell = row.find_all(["th", "td"])[column]
        if gpu.bandwidth_gbs is None:
            assert text(cell) == "Not published"
            continue
        # One user, 8,192 tokens: bandwidth (bytes/s) ÷ (the BF16 weights but the input embedding, which
        # is looked up, + the KV cache: 2 × KV heads × head size × 2 bytes per layer and token), whole tokens.
        read = ((llama.parameters - llama.vocab_size * llama.hidden_size) * 2
                + 8192 * llama.layers * 2 * llama.kv_heads * llama.head_dim * 2)
        expected = int(Fraction(str(gpu.bandwidth_gbs)) * 10**9 // read)
        assert text(cell) == f"≤ {expected:,} tokens/s"


def test_a_page_without_translation_says_so_and_links_to_no_missing_page(tmp_path):
    from gpuguide.build.pipeline import Options, run
    from gpuguide.project import Project

    from sites import tiny_project

    project = Project(tiny_project(tmp_path))
    (project.content_dir / "fr" / "seulement-en-francais.md").write_text(
        "---\ntitle: Une page en français\ndescription: Pas encore traduite.\nslug: seulement-en-francais\n"
        "translation_key: guide/french-only\nlayout: guide\n---\nTexte.\n", encoding="utf-8")
    result = run(project, Options(search=False))
    assert any("no `en` translation" in problem.message for problem in result.warnings)
    soup = BeautifulSoup((project.site_dir / "fr/seulement-en-francais/index.html").read_text(), "lxml")
    switcher = soup.select_one(".language-switcher")
    assert switcher.select("a[hreflang=en]") == []
    assert "(pas encore traduit)" in text(switcher)
    assert not soup.select("link[rel=alternate][hreflang]")  # no alternates for a lone page


def test_every_use_case_page_has_a_chart_whose_figures_are_text(pages):
    use_case_pages = [soup for soup in pages.values() if soup.select_one("article.use-case")]
    assert len(use_case_pages) == 12
    for soup in use_case_pages:
        chart = soup.select_one("figure.chart")
        assert chart is not None
        assert chart["aria-labelledby"] == chart.figcaption["id"]
        bars = chart.select("ol.chart-bars > li")
        assert bars
        for bar in bars:  # the GPU, its figure and its price are text; the bar is decoration
            assert text(bar.select_one(".chart-label")) and text(bar.select_one(".chart-value"))
            assert bar.svg["aria-hidden"] == "true"
        widths = [float(bar.select_one("rect.chart-bar")["width"]) for bar in bars]
        assert widths == sorted(widths, reverse=True)  # longest bar first
