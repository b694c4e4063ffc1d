"""Properties over a whole built site, real and scaled: no page contradicts another.

Each page is parsed with lxml. Figures are found by the hooks the templates put on them: tables'
``data-gpu`` rows and ``data-column`` headers, GPU pages' ``data-column`` figures, comparisons'
``data-column`` rows, prose figures' ``data-shortcode``, recommendations' ``data-gpu``/``data-count``/
``data-model``/``data-precision``. Displayed capacities are parsed back from their text and
compared allowing for their rounding (rounded down: the truth lies below the next step).
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from lxml import html as lxml_html


from gpuguide.figures import rounding
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.errors import Problems

from sites import ROOT

pytestmark = pytest.mark.slow

CAPACITY_COLUMNS = ("train_1gpu", "train_8gpu", "lora_1gpu", "qlora_1gpu", "infer_bf16_1gpu", "infer_fp8_1gpu",
                    "infer_int4_1gpu", "infer_bf16_8gpu", "infer_fp8_8gpu", "infer_int4_8gpu")
#: The capacity column a recommendation at a precision must stay within (MXFP4 takes at least 4 bits a weight).
PRECISION_COLUMN = {"bf16": "infer_bf16_1gpu", "fp8": "infer_fp8_1gpu", "int4": "infer_int4_1gpu",
                    "mxfp4": "infer_int4_1gpu"}


def visible_text(element) -> str:
    """An element's text as a reader reads it, spaces collapsed, without the "(better)" mark of comparisons."""
    if element.xpath('.//*[@class="better-mark"]'):
        element = copy.deepcopy(element)
        for mark in element.xpath('.//*[@class="better-mark"]'):
            mark.drop_tree()  # keeps what follows it
    return " ".join(element.text_content().replace("\u00a0", " ").replace("\u202f", " ").split())


def parse_params(text: str) -> int:
    """``≈ 75 Md`` / ``≈ 75B`` / ``≈ 760 M`` (a caveat may follow) → 75 × 10⁹ …; ``< 1 M`` → 0."""
    if text.startswith("<"):
        return 0
    match = re.match(r"≈ ?([\d.,]+) ?(Md|Bn|B|T|M)\b", text)
    assert match, f"not a parameter count: {text!r}"
    number = Fraction(match[1].replace(",", "."))
    return int(number * {"Md": 10**9, "B": 10**9, "Bn": 10**12, "T": 10**12, "M": 10**6}[match[2]])


def upper_bound(shown: int) -> int:
    """The smallest count the truth is below, given its rounded-down display."""
    return shown + rounding.readable_step(shown) if shown else 10**6


@dataclass
class Site:
    """What a built site shows, by page and by figure."""

    root: Path
    dataset: Dataset
    pages: dict[str, object] = field(default_factory=dict)  # output path → lxml root
    # (language, gpu id, column id) → {displayed text: [pages]}
    figures: dict[tuple[str, str, str], dict[str, list[str]]] = field(default_factory=lambda: defaultdict(dict))
    exact: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))  # (gpu, column) → data-value

    def note(self, lang: str, gpu: str, column: str, cell, page: str) -> None:
        self.figures[(lang, gpu, column)].setdefault(visible_text(cell), []).append(page)
        if cell.get("data-value") is not None:
            self.exact[(gpu, column)].add(cell.get("data-value"))


def read_site(site_dir: Path) -> Site:
    project = site_dir.parent
    site = Site(site_dir, load_dataset(project / "data", Problems(project)))
    for path in sorted(site_dir.rglob("*.html")):
        relative = path.relative_to(site_dir).as_posix()
        root = lxml_html.fromstring(path.read_bytes())
        site.pages[relative] = root
        lang = root.get("lang")
        for table in root.xpath('//table[contains(@class, "gpu-table")]'):
            columns = [th.get("data-column") for th in table.xpath("./thead/tr/th")]
            for row in table.xpath("./tbody/tr[@data-gpu]"):
                for column, cell in zip(columns, row.xpath("./th|./td")):
                    if column:
                        site.note(lang, row.get("data-gpu"), column, cell, relative)
        for article in root.xpath('//article[@data-gpu]'):
            gpu = article.get("data-gpu")
            for holder in article.xpath('.//*[@data-column]'):
                cell = holder.xpath("./dd|./td")
                if cell:
                    site.note(lang, gpu, holder.get("data-column"), cell[0], relative)
        for table in root.xpath('//table[contains(@class, "comparison-table")]'):
            gpus = [th.get("data-gpu") for th in table.xpath("./thead/tr/th[@data-gpu]")]
            for row in table.xpath("./tbody/tr[@data-column]"):
                for gpu, cell in zip(gpus, row.xpath("./td")[:2]):
                    site.note(lang, gpu, row.get("data-column"), cell, relative)
    return site


@pytest.fixture(scope="module", params=["real", "scaled"])
def site(request, built_site: Path) -> Site:
    return read_site(built_site if request.param == "real" else request.getfixturevalue("built_scaled_site"))


def shown_capacity(site: Site, lang: str, gpu: str, column: str) -> int:
    texts = site.figures[(lang, gpu, column)]
    assert texts, f"no page shows {column} for {gpu} in {lang}"
    return parse_params(next(iter(texts)))


def test_every_figure_reads_the_same_on_every_page(site):
    checked = 0
    for (lang, gpu, column), texts in site.figures.items():
        assert len(texts) == 1, f"{gpu} {column} ({lang}) reads differently: {texts}"
        checked += 1
    for (gpu, column), values in site.exact.items():
        assert len(values) == 1, f"{gpu} {column}: exact values differ between pages: {values}"
    assert checked > 500


def test_prose_figures_equal_the_tables(site):
    checked = 0
    for path, root in site.pages.items():
        lang = root.get("lang")
        for span in root.xpath('//span[@data-shortcode]'):
            name, *args = span.get("data-shortcode").split()
            if name != "gpu_figure":
                continue
            values = dict(arg.split("=", 1) for arg in args)
            key = (lang, values["gpu"], values["column"])
            if key in site.figures:
                assert set(site.figures[key]) == {visible_text(span)}, f"{path}: {span.get('data-shortcode')}"
                checked += 1
    assert checked >= 40


def recommendations(site: Site):
    """Every configuration a page says holds a model: the rentable ones, and those without an offer
    or below a speed asked for (they hold it too)."""
    for path, root in site.pages.items():
        for cell in root.xpath("//*[@data-gpu and @data-count and @data-model and @data-weights and @data-reason]"):
            if cell.get("data-reason") in ("rent", "no_offer", "speed"):
                yield path, root.get("lang"), cell


def test_a_model_said_to_run_on_a_configuration_is_within_its_shown_capacity(site):
    checked = 0
    for path, lang, cell in recommendations(site):
        gpu, count, precision = cell.get("data-gpu"), int(cell.get("data-count")), cell.get("data-weights")
        model = site.dataset.llm_models[cell.get("data-model")]
        capacity = shown_capacity(site, lang, gpu, PRECISION_COLUMN[precision])
        assert model.parameters < count * upper_bound(capacity), \
            f"{path}: {model.id} at {precision} on {count} × {gpu}, whose capacity is shown as {capacity:,}"
        checked += 1
    assert checked >= 50


def test_a_recommendation_can_be_followed(site):
    """A live offer, and a fast link between its GPUs when there are several; a configuration named
    without an offer says so."""
    checked = 0
    for path, lang, cell in recommendations(site):
        gpu = site.dataset.gpus[cell.get("data-gpu")]
        count = int(cell.get("data-count"))
        assert count == 1 or count <= gpu.interconnect.gpus, f"{path}: {count} × {gpu.id} share no fast link"
        live = gpu.id in site.dataset.prices
        assert live == (cell.get("data-reason") != "no_offer"), f"{path}: {gpu.id}: {cell.get('data-reason')}"
        text = visible_text(cell)
        if " × " in text:  # a configuration named in words (the rows of a plan table name the GPU only)
            marked = text.endswith(("(sans offre en direct)", "(no live offer)"))
            assert live != marked, f"{path}: {gpu.id} {'has an offer' if live else 'has no offer'}: {text}"
            checked += 1
    assert checked >= 50


def test_workloads_are_ordered_on_every_gpu(site):
    """Full training ≤ LoRA ≤ BF16 inference, QLoRA ≤ 4-bit inference: in exact values and as shown."""
    for lang in site.dataset.config.languages:
        for gpu in site.dataset.gpus:
            shown = {column: shown_capacity(site, lang, gpu, column)
                     for column in ("train_1gpu", "lora_1gpu", "infer_bf16_1gpu", "qlora_1gpu", "infer_int4_1gpu")}
            assert shown["train_1gpu"] <= shown["lora_1gpu"] <= shown["infer_bf16_1gpu"], (gpu, shown)
            assert shown["qlora_1gpu"] <= shown["infer_int4_1gpu"], (gpu, shown)


def test_more_memory_more_gpus_or_fewer_bits_never_give_less(site):
    lang = site.dataset.config.default_language
    gpus = sorted(site.dataset.gpus.values(), key=lambda gpu: gpu.memory_gb)
    shown_columns = [column for column in CAPACITY_COLUMNS
                     if all(site.figures.get((lang, gpu.id, column)) for gpu in gpus)]
    assert len(shown_columns) >= 7
    for column in shown_columns:
        shown = [shown_capacity(site, lang, gpu.id, column) for gpu in gpus]
        assert shown == sorted(shown), column
    pairs = [("train_1gpu", "train_8gpu"), ("infer_bf16_1gpu", "infer_fp8_1gpu"), ("infer_fp8_1gpu", "infer_int4_1gpu"),
             ("infer_bf16_1gpu", "infer_bf16_8gpu")]
    for gpu in gpus:
        for fewer, more in pairs:
            assert shown_capacity(site, lang, gpu.id, fewer) <= shown_capacity(site, lang, gpu.id, more), (gpu.id, fewer)


def test_comparison_ratios_come_from_exact_values(site):
    checked = 0
    for path, root in site.pages.items():
        locale = site.dataset.config.languages[root.get("lang")].locale
        for row in root.xpath('//table[contains(@class, "comparison-table")]/tbody/tr'):
            first, second, ratio = row.xpath("./td")
            shown = visible_text(ratio)
            values = [cell.get("data-value") for cell in (first, second)]
            assert not re.fullmatch(r"× 1", shown), f"{path}: a ratio of 1 reads “× 1”"
            if None in values or row.get("data-column") == "launch_year":
                assert shown == "", f"{path}: a ratio with a missing figure: {shown}"
                continue
            if not all("number" in (cell.get("class") or "").split() for cell in (first, second)):
                assert shown == "" or row.get("data-column") not in ("ray_tracing", "fp64_useful"), path
                continue
            exact = Fraction(values[0]) / Fraction(values[1])
            if exact == 1:
                assert shown in ("identique", "same")
            elif shown in ("presque identique", "nearly the same"):
                assert abs(exact - 1) < Fraction(1, 1000)
            else:
                # The cells' data-value round irrational-looking values to 6 decimals: compare the
                # shown ratio with the exact one within half its last digit (a ratio of rounded
                # displays, the old bug, is off by far more: ≈ 30B ÷ ≈ 25B vs 32.0 ÷ 29.1).
                number = shown.removeprefix("× ").replace(" ", "")  # French groups digits with a space
                number = number.replace(",", "") if locale.startswith("en") else number.replace(",", ".")
                decimals = len(number.split(".")[1]) if "." in number else 0
                assert abs(Fraction(number) - exact) <= Fraction(1, 2 * 10**decimals) + exact / 10**5, \
                    f"{path} {row.get('data-column')}: {shown} for {float(exact):.4f}"
            checked += 1
    assert checked > 100


def test_decode_ceilings_are_compared(site):
    """The decode ceiling, the most useful ratio, has one wherever both bandwidths are published."""
    found = 0
    for path, root in site.pages.items():
        for row in root.xpath('//table[contains(@class, "comparison-table")]/tbody/tr[starts-with(@data-column, "decode_upper_bound")]'):
            first, second, ratio = row.xpath("./td")
            if first.get("data-value") and second.get("data-value"):
                assert visible_text(ratio), path
                found += 1
    assert found > 10


def test_absent_features_read_not_supported_never_not_published(site):
    for (lang, gpu_id, column), texts in site.figures.items():
        gpu = site.dataset.gpus[gpu_id]
        if column == "fp8" and gpu.fp8_tflops == "not supported":
            assert set(texts) <= {"Non pris en charge", "Not supported"}, (gpu_id, texts)
        if column == "scene_tier" and gpu.ray_tracing is False:  # the column says why in its own words
            assert set(texts) <= {"Pas de cœurs RT", "No RT cores"}, (gpu_id, texts)


FRENCH_SPACE_BEFORE = re.compile(r"[ \t\n][:;!?»]|«[ \t\n]")
SKIPPED = {"script", "style", "code", "pre", "svg"}


def french_text(root):
    """Every text node a reader of a French page reads, with the attributes read aloud or shown."""
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag in SKIPPED or any(
                ancestor.tag in SKIPPED for ancestor in element.iterancestors()):
            continue
        if element.text and not element.text.startswith(("https://", "http://")):  # a source's address
            yield element.text
        if element.tail and element.getparent() is not None and element.getparent().tag not in SKIPPED:
            yield element.tail
        for attribute in ("aria-label", "title", "alt"):
            if element.get(attribute):
                yield element.get(attribute)
    for meta in root.xpath('//meta[@name="description"]|//meta[@property="og:title"]|//meta[@property="og:description"]'):
        yield meta.get("content")


def test_french_pages_use_french_spacing(site):
    checked = 0
    for path, root in site.pages.items():
        if root.get("lang") != "fr":
            continue
        previous = ""
        for text in french_text(root):
            # A node may start with the punctuation right after a space that ended the previous one.
            for match in FRENCH_SPACE_BEFORE.finditer(previous[-1:] + text):
                context = (previous[-1:] + text)[max(0, match.start() - 30):match.end() + 10]
                raise AssertionError(f"{path}: ordinary space in French typography: {context!r}")
            previous = text
        checked += 1
    assert checked > 100


def test_french_pages_show_no_english_strings_of_the_data(site):
    """What the data makes readers read goes through the UI strings: no English wording on a French page."""
    ui = {lang: yaml.safe_load((ROOT / "data" / "ui" / f"{lang}.yaml").read_text(encoding="utf-8"))["strings"]
          for lang in ("fr", "en")}
    data_keys = [key for key in ui["en"] if key.startswith(
        ("form_factor_", "topology_", "segment_", "scene_tier_", "precision_", "not_", "no_offer", "over_pcie",
         "fp64_derived", "reference_configuration", "memory_at_max_context"))]
    english = set()
    for key in data_keys:
        for text in (ui["en"][key].values() if isinstance(ui["en"][key], dict) else [ui["en"][key]]):
            for fragment in re.split(r"\{[^}]*\}|[(),]", text):
                fragment = fragment.strip()
                if (len(fragment) >= 5 and fragment not in str(ui["fr"][key])
                        and not any(fragment in gpu.model for gpu in site.dataset.gpus.values())):
                    english.add(fragment)
    english |= {"dual-slot", "single-slot", "triple-slot", "air-cooled", "low-profile", "full-height"}
    pattern = re.compile("|".join(re.escape(fragment) for fragment in sorted(english, key=len, reverse=True)))
    for path, root in site.pages.items():
        if root.get("lang") == "fr":
            text = " ".join(french_text(root))
            found = pattern.search(text)
            assert found is None, f"{path}: English “{found[0]}” on a French page"


def test_the_methodology_page_is_linked_from_every_table_note(site):
    for path, root in site.pages.items():
        for note in root.xpath('//p[contains(@class, "table-note")]'):
            assert note.xpath('.//a[contains(@class, "methodology-link")]'), f"{path}: a table note without the method"


SUFFIXES = {"B": 10**9, "Md": 10**9, "T": 10**12, "Bn": 10**12, "M": 10**6}


def shown_number(text: str, locale: str) -> Fraction | None:
    """The number a cell's text prints, as a reader reads it: ``≈ 30B`` → 30 × 10⁹, ``3,350 GB/s`` →
    3,350, ``$0.036`` → 0.036, ``1 307 TFLOPS`` → 1,307; None for a text without one."""
    found = shown_digits(text, locale)
    return None if found is None else Fraction(found[0]) * SUFFIXES.get(found[1], 1)


def shown_digits(text: str, locale: str) -> tuple[str, str] | None:
    """The first number of ``text`` as plain digits with a decimal point, and its suffix."""
    match = re.search(r"(\d[\d,. ]*)\s*(Md|Bn|B|T|M)?\b", text.replace("\u00a0", " ").replace("\u202f", " "))
    if not match:
        return None
    digits = match[1].strip().rstrip(".,").replace(" ", "")
    digits = digits.replace(",", "") if locale.startswith("en") else digits.replace(".", "").replace(",", ".")
    return digits, match[2] or ""


def test_no_bottom_line_contradicts_the_values_its_page_prints(site):
    """"≈ 30B against ≈ 15B, 67 % more" was the bug: a difference a comparison's bottom line states is
    that of the two figures its page prints for that criterion, to the precision it prints it; a
    capacity or speed it quotes is one of the page's two cells."""
    checked = 0
    for path, root in site.pages.items():
        lang = root.get("lang")
        locale = site.dataset.config.languages[lang].locale
        cells = {row.get("data-column"): [visible_text(td) for td in row.xpath("./td")[:2]]
                 for row in root.xpath('//table[contains(@class, "comparison-table")]/tbody/tr[@data-column]')}
        for line in root.xpath('//*[@data-use-case-summary]'):
            for figure in line.xpath('.//span[@class="figure"]'):
                shown = visible_text(figure)
                criterion = figure.get("data-criterion")
                pair = cells[line.get(f"data-{criterion}")]
                where = f"{path}: {shown} ({criterion}) in {visible_text(line)}"
                if re.search(r"[A-Za-z$]", shown) and "%" not in shown:
                    assert shown in pair, where
                    continue
                high, low = sorted((shown_number(pair[0], locale), shown_number(pair[1], locale)), reverse=True)
                stated = shown_number(shown, locale)
                digits = shown_digits(shown, locale)[0]
                decimals = len(digits.split(".")[1]) if "." in digits else 0
                tolerance = Fraction(1, 2 * 10**decimals)
                if "%" in shown:
                    share = (1 - low / high) * 100 if criterion == "cost" else (high / low - 1) * 100
                    assert abs(share - stated) <= tolerance, f"{where} (the figures give {float(share):.2f} %)"
                else:
                    assert abs(high / low - stated) <= tolerance, f"{where} (the figures give {float(high / low):.3f})"
                checked += 1
    assert checked > 100
