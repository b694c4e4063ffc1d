"""The table column registry (``figures.columns``): each column's exact value and its text in both
languages, for the tiny site's three GPUs, with the capacities recomputed here from the documented
rules (80 % of memory; 16 / 2.2 / 0.65 bytes a parameter to train; 2 / 1 / 0.5 to serve; the
rounding ladder), and the problems an unknown column gives.

French strings carry CLDR's no-break spaces: U+202F in digit groups and before units, U+00A0
before currency symbols and compact suffixes.
"""

from __future__ import annotations

import datetime as dt
import math
from fractions import Fraction
from pathlib import Path

import pytest
from sites import edit, tiny_project

from gpuguide.errors import Problems
from gpuguide.figures import columns
from gpuguide.figures.columns import COLUMNS
from gpuguide.figures.page_tables import (
    Cell,
    build_table,
    check_columns,
    make_cell,
    resolve_column,
)
from gpuguide.figures.sizing import DOES_NOT_FIT, NO_OFFER, NOT_SUPPORTED
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.prices import Price
from gpuguide.structure.loading import load_library
from gpuguide.structure.pages import ModelColumn

NB, NN = "\u00a0", "\u202f"  # no-break space, narrow no-break space
B = 10**9
GPUS = ["big", "pcie", "card"]



def cells(dataset: Dataset, column: object, language) -> dict[str, Cell]:
    """The cells of one column for the three tiny GPUs, by GPU id."""
    table = build_table(GPUS, [column], dataset, language)
    return {row.gpu.id: row.cells[0] for row in table.rows}


def readable(params: int) -> int:
    """The README's rounding ladder, written again here: whole units below 10, multiples of 5 from
    10 to 100, two significant digits from 100 (units: millions below 10⁹, billions above)."""
    unit = B if params >= B else 10**6
    units = params / unit
    if units >= 100:
        step = 10 ** (len(str(params)) - 2)
    elif units >= 10:
        step = 5 * unit
    else:
        step = unit
    return params - params % step


# --- capacities ----------------------------------------------------------------------------------

# column → bytes per parameter and GPU count, as the README's table of columns documents them.
TRAINING = {
    "train_1gpu": (16, 1), "train_8gpu": (16, 8), "lora_1gpu": (Fraction(22, 10), 1),
    "qlora_1gpu": (Fraction(65, 100), 1)}
# Serving: bytes per weight (AWQ/GPTQ: 4 bits + a 16-bit scale and a 4-bit zero per 128) and GPU count.
SERVING = {
    "infer_bf16_1gpu": (2, 1), "infer_fp8_1gpu": (1, 1), "infer_int4_1gpu": (Fraction(4 + Fraction(20, 128), 8), 1),
    "infer_bf16_8gpu": (2, 8), "infer_fp8_8gpu": (1, 8), "infer_int4_8gpu": (Fraction(4 + Fraction(20, 128), 8), 8)}
CAPACITIES = {**TRAINING, **SERVING}
GIB = 2**30


@pytest.mark.parametrize("column_id", TRAINING)
def test_training_capacity_cells_keep_the_exact_capacity_from_80_percent_of_memory(dataset, en, column_id):
    per_param, count = TRAINING[column_id]
    for gpu_id, cell in cells(dataset, column_id, en).items():
        memory_gb = dataset.gpus[gpu_id].memory_gb
        expected = math.floor(Fraction(memory_gb) * B * Fraction(8, 10) * count / per_param)
        assert cell.value == expected, (gpu_id, column_id)
        assert cell.state == "value"


@pytest.mark.parametrize("column_id", SERVING)
def test_serving_capacity_cells_keep_the_exact_capacity_of_the_engines_budget(dataset, en, column_id):
    # vLLM's budget: the reported memory (the vendor's GB read as GiB here) × 90 %, less 3 GiB of its own.
    per_param, count = SERVING[column_id]
    for gpu_id, cell in cells(dataset, column_id, en).items():
        budget = Fraction(dataset.gpus[gpu_id].memory_gb) * GIB * Fraction(9, 10) - 3 * GIB
        assert cell.value == math.floor(budget * count / per_param), (gpu_id, column_id)


@pytest.mark.parametrize(("column_id", "gpu_id", "french", "english"), [
    # 80 GB × 80 % ÷ 16 = 4 B; × 8 GPUs = 32 B → 30 (multiples of 5 from 10).
    ("train_1gpu", "big", f"≈{NB}4{NB}Md", f"≈{NB}4B"),
    ("train_8gpu", "big", f"≈{NB}30{NB}Md", f"≈{NB}30B"),
    # 24 GB × 80 % ÷ 16 = 1.2 B → 1; × 8 = 9.6 B → 9 (whole units below 10).
    ("train_1gpu", "card", f"≈{NB}1{NB}Md", f"≈{NB}1B"),
    ("train_8gpu", "card", f"≈{NB}9{NB}Md", f"≈{NB}9B"),
    # 64 GB ÷ 2.2 = 29.1 B → 25; ÷ 0.65 = 98.5 B → 95.
    ("lora_1gpu", "big", f"≈{NB}25{NB}Md", f"≈{NB}25B"),
    ("qlora_1gpu", "big", f"≈{NB}95{NB}Md", f"≈{NB}95B"),
    # 8 × (80 GiB × 90 % − 3 GiB) = 592.7 GB ÷ 2 = 296 B → 290 (two significant digits from 100).
    ("infer_bf16_8gpu", "big", f"≈{NB}290{NB}Md", f"≈{NB}290B"),
    # 592.7 GB ÷ 0.5195 = 1,141 B → 1.1 × 10¹²: French "Bn" (billion), English "T".
    ("infer_int4_8gpu", "big", f"≈{NB}1,1{NB}Bn", f"≈{NB}1.1T"),
])
def test_capacity_text_is_rounded_down_on_the_ladder(dataset, fr, en, column_id, gpu_id, french, english):
    assert cells(dataset, column_id, fr)[gpu_id].text == french
    assert cells(dataset, column_id, en)[gpu_id].text == english


@pytest.mark.parametrize("column_id", CAPACITIES)
def test_every_capacity_text_is_the_ladder_of_its_exact_value(dataset, en, column_id):
    for cell in cells(dataset, column_id, en).values():
        shown = readable(cell.value)
        assert shown <= cell.value  # rounded down: never overstated
        assert cell.text.startswith(f"≈{NB}")
        # The figure shown, in billions (or T for a thousand billions), is the ladder's.
        figure = cell.text.split(",")[0].removeprefix(f"≈{NB}")
        number, suffix = float(figure[:-1]), figure[-1]
        assert number * {"B": B, "T": 1000 * B}[suffix] == shown


def test_serving_on_eight_gpus_beyond_the_fast_link_says_over_pcie(dataset, fr, en):
    # big: 8 GPUs on NVSwitch; pcie: a bridge joins 2; card: PCIe only.
    for column_id in ("infer_bf16_8gpu", "infer_fp8_8gpu", "infer_int4_8gpu"):
        english = cells(dataset, column_id, en)
        assert english["big"].caveat is None
        assert english["pcie"].caveat == english["card"].caveat == "over_pcie"
        assert english["card"].text.endswith(", over PCIe")
    assert cells(dataset, "infer_bf16_8gpu", en)["card"].text == f"≈{NB}75B, over PCIe"  # 8 × 19.2 ÷ 2 = 76.8
    assert cells(dataset, "infer_bf16_8gpu", fr)["card"].text == f"≈{NB}75{NB}Md, via PCIe"


def test_one_gpu_serving_and_eight_gpu_training_carry_no_caveat(dataset, en):
    # Full training on 8 GPUs shards states (data parallelism), which runs over PCIe too.
    for column_id in ("infer_bf16_1gpu", "train_8gpu"):
        assert all(cell.caveat is None for cell in cells(dataset, column_id, en).values())


# --- specifications ------------------------------------------------------------------------------

@pytest.mark.parametrize(("column_id", "gpu_id", "french", "english"), [
    ("memory", "big", f"80{NN}Go", "80 GB"),
    ("memory", "card", f"24{NN}Go", "24 GB"),
    ("bandwidth", "big", f"3{NN}350{NN}Go/s", "3,350 GB/s"),
    ("bf16", "card", f"165{NN}TFLOPS", "165 TFLOPS"),  # 165.2: three significant figures
    ("fp32", "pcie", f"19,5{NN}TFLOPS", "19.5 TFLOPS"),
    ("fp8", "big", f"1{NN}979{NN}TFLOPS", "1,979 TFLOPS"),
    ("memory_type", "pcie", "HBM2e", "HBM2e"),
    ("segment", "big", "Centre de données", "Data centre"),
    ("segment", "card", "Grand public", "Consumer"),
    ("tdp", "big", f"700{NN}W", "700 W"),
    ("launch_year", "big", "2022", "2022"),  # a year is never digit-grouped
    ("interconnect", "big", f"NVLink, 900{NN}Go/s (8 GPU reliés par NVSwitch)",
     "NVLink, 900 GB/s (8 GPUs linked by NVSwitch)"),
    ("interconnect", "pcie", f"NVLink, 600{NN}Go/s (pont entre 2 cartes)", "NVLink, 600 GB/s (bridge between 2 cards)"),
    ("interconnect", "card", "PCIe (sans NVLink)", "PCIe (no NVLink)"),
    ("form_factor", "big", "SXM", "SXM"),
    ("form_factor", "pcie", "PCIe, double largeur, refroidissement passif", "PCIe, dual-slot, passive cooling"),
    ("form_factor", "card", "PCIe, triple largeur, refroidissement actif (Founders Edition)",
     "PCIe, triple-slot, active cooling (Founders Edition)"),
    ("ray_tracing", "card", "Oui", "Yes"),
    ("ray_tracing", "big", "Non", "No"),
])
def test_specification_cells_in_both_languages(dataset, fr, en, column_id, gpu_id, french, english):
    assert cells(dataset, column_id, fr)[gpu_id].text == french
    assert cells(dataset, column_id, en)[gpu_id].text == english


def test_not_supported_and_not_published_are_told_apart(dataset, fr, en):
    # pcie: `fp8_tflops: not supported`; no fp64_tensor_tflops and no tdp_w in its record.
    fp8 = cells(dataset, "fp8", en)["pcie"]
    assert (fp8.text, fp8.value, fp8.state) == ("Not supported", NOT_SUPPORTED, "not-supported")
    assert cells(dataset, "fp8", fr)["pcie"].text == "Non pris en charge"
    for column_id in ("fp64_tensor", "tdp"):
        missing = cells(dataset, column_id, en)["pcie"]
        assert (missing.text, missing.value, missing.state) == ("Not published", None, "not-published")
        assert cells(dataset, column_id, fr)["pcie"].text == "Non publié"


def test_fp64_given_as_a_share_of_fp32_says_so(dataset, fr, en):
    # card: 82.6 TFLOPS FP32 × 1/64 = 1.290625 TFLOPS.
    cell = cells(dataset, "fp64", en)["card"]
    assert cell.value == Fraction(826, 10) / 64
    assert cell.text == "1.29 TFLOPS (1/64 of FP32)"
    assert cell.caveat == "fp64_derived"
    assert cells(dataset, "fp64", fr)["card"].text == f"1,29{NN}TFLOPS (1/64 du FP32)"
    assert cells(dataset, "fp64", en)["big"].caveat is None  # published directly: no caveat


def test_useful_fp64_is_at_least_a_tenth_of_fp32(dataset, en):
    found = {gpu_id: cell.value for gpu_id, cell in cells(dataset, "fp64_useful", en).items()}
    # big 34 ≥ 6.7; pcie 9.7 ≥ 1.95; card 1.29 < 8.26.
    assert found == {"big": True, "pcie": True, "card": False}


def test_scene_tier_needs_ray_tracing_hardware(dataset, en):
    found = cells(dataset, "scene_tier", en)
    assert found["big"].state == "not-supported"  # 80 GB, but no RT cores
    assert (found["card"].value, found["card"].text) == ("medium", "Production scenes")  # 24 GB: 24 ≤ m < 48


# --- prices and price-performance ----------------------------------------------------------------

def test_price_is_a_from_price_or_no_offer(dataset, fr, en):
    assert cells(dataset, "price", fr)["big"].text == f"dès 2,88{NB}$US"
    assert cells(dataset, "price", en)["big"].text == "from $2.88"
    assert cells(dataset, "price", en)["card"].text == "from $0.50"
    assert cells(dataset, "price", en)["pcie"].text == "No offer"
    assert cells(dataset, "price", fr)["pcie"].text == "Aucune offre"


def test_a_price_cell_without_an_offer_is_in_the_no_offer_state(dataset, en):
    assert cells(dataset, "usd_per_gb_hour", en)["pcie"].state == "no-offer"  # holds today
    assert cells(dataset, "price", en)["pcie"].state == "no-offer"


def test_price_performance_is_the_price_divided_by_the_resource(dataset, fr, en):
    pflop = cells(dataset, "usd_per_bf16_pflop_hour", en)
    assert pflop["big"].value == Fraction(288, 100) * 1000 / 989  # $2.88 ÷ 0.989 PFLOPS
    assert pflop["big"].text == "$2.91"
    assert cells(dataset, "usd_per_bf16_pflop_hour", fr)["big"].text == f"2,91{NB}$US"
    assert pflop["card"].text == "$3.03"  # 0.50 ÷ 0.1652 = 3.027
    gb = cells(dataset, "usd_per_gb_hour", en)
    assert gb["big"].value == Fraction(288, 100) / 80
    assert (gb["big"].text, gb["card"].text) == ("$0.036", "$0.0208")  # three significant digits
    fp64 = cells(dataset, "usd_per_fp64_tflop_hour", en)
    assert fp64["big"].value == Fraction(288, 100) / 34  # per TFLOP-hour, not per PFLOP-hour
    assert fp64["card"].value == Fraction(1, 2) / (Fraction(826, 10) / 64)  # from the derived FP64
    for column_id in ("usd_per_bf16_pflop_hour", "usd_per_gb_hour", "usd_per_fp64_tflop_hour"):
        no_offer = cells(dataset, column_id, en)["pcie"]
        assert (no_offer.value, no_offer.text, no_offer.state) == (NO_OFFER, "No offer", "no-offer")


def test_price_performance_notes_once_each_in_column_order():
    ids = ("memory", "usd_per_gb_hour", "usd_per_million_tokens:small-llm:bf16", "usd_per_bf16_pflop_hour")
    assert columns.price_performance_notes(ids) == ["table_note_price_performance",
                                                    "table_note_usd_per_million_tokens"]
    assert columns.price_performance_notes(("memory", "train_8gpu")) == []


# --- columns about one model ---------------------------------------------------------------------

def test_decode_bound_is_bandwidth_over_the_weights_and_kv_cache_read_per_token(dataset, fr, en):
    column = ModelColumn(id="decode_upper_bound", model="small-llm", precision="bf16")
    found = cells(dataset, column, en)
    # One user, 8,192 tokens: every weight but the input embedding (128,256 × 4,096, looked up), and the
    # KV cache, 32 layers × 2 × 8 heads × 128 × 2 bytes a token.
    read = (8_030_261_248 - 128_256 * 4096) * 2 + 8192 * 32 * 2 * 8 * 128 * 2
    assert found["big"].value == Fraction(3350 * B, read)
    assert found["big"].text == "≤ 208 tokens/s"  # 3,350 GB/s ÷ 16.08 GB
    assert cells(dataset, column, fr)["big"].text == "≤ 208 tokens/s"
    header = build_table(GPUS, [column], dataset, en).headers[0]
    assert header == "Small LLM BF16: one user, at most"


def test_decode_ceiling_of_a_model_that_does_not_load_is_not_a_speed(dataset, en):
    # big-llm in BF16: 1,342 GB of weights, far beyond one GPU's budget.
    found = cells(dataset, ModelColumn(id="decode_upper_bound", model="big-llm", precision="bf16"), en)
    for cell in found.values():
        assert (cell.value, cell.state, cell.text) == (DOES_NOT_FIT, "does-not-fit", "Does not fit on one GPU")


def test_price_per_million_tokens_needs_an_offer_and_is_a_floor(dataset, en):
    found = cells(dataset, ModelColumn(id="usd_per_million_tokens", model="small-llm", precision="bf16"), en)
    # Batch workload, 64 sequences of 4,096 tokens on one Big: memory-bound (the KV cache, 34.4 GB, is read
    # at every step with the weights).
    read = (8_030_261_248 - 128_256 * 4096) * 2 + 64 * 4096 * 32 * 2 * 8 * 128 * 2
    total = Fraction(3350 * B * 64, read)
    assert found["big"].value == Fraction(288, 100) * 10**6 / (total * 3600)
    assert found["big"].text.startswith("≥ $")
    assert found["pcie"].state == "no-offer"  # it holds the model, but nobody rents it
    assert found["card"].state == "does-not-fit"  # 24 GB cannot hold the batch


def test_measured_price_per_million_tokens_comes_from_the_best_published_result(dataset, en):
    found = cells(dataset, ModelColumn(id="measured_usd_per_million_tokens", model="small-llm",
                                       precision="native"), en)
    # data/measurements.yaml of the tiny site: 40,000 tokens/s on 8 Big (offline); the card's is a server run.
    assert found["big"].value == Fraction(288, 100) * 10**6 / (Fraction(40_000, 8) * 3600)
    assert (found["card"].state, found["card"].text) == ("not-measured", "Not measured")
    assert found["pcie"].state == "not-measured"


def test_diffusion_fits_from_the_documented_memory(dataset, fr, en):
    # image-model documents 18 GB in BF16 and nothing in FP8.
    bf16 = cells(dataset, ModelColumn(id="diffusion_fits", model="image-model", precision="bf16"), en)
    assert {gpu_id: cell.text for gpu_id, cell in bf16.items()} == {"big": "Yes", "pcie": "Yes", "card": "Yes"}
    fp8 = cells(dataset, ModelColumn(id="diffusion_fits", model="image-model", precision="fp8"), fr)
    assert {cell.text for cell in fp8.values()} == {"Non publié"}


def test_a_model_column_has_an_id_naming_its_model_and_precision(dataset):
    column = resolve_column(ModelColumn(id="decode_upper_bound", model="small-llm", precision="int4"), dataset)
    assert column.id == "decode_upper_bound:small-llm:int4"
    assert resolve_column("memory", dataset) is COLUMNS["memory"]


# --- cells and tables ----------------------------------------------------------------------------

def test_a_table_keeps_the_gpu_and_column_order_it_is_given(dataset, en):
    table = build_table(["card", "big"], ["price", "memory"], dataset, en)
    assert [row.gpu.id for row in table.rows] == ["card", "big"]
    assert table.column_ids == ("price", "memory")
    assert table.headers == ("Price/h", "Memory")
    assert [cell.text for cell in table.rows[0].cells] == ["from $0.50", "24 GB"]


def test_sort_values_are_numbers_for_numbers_and_booleans_only(dataset, en):
    big = dataset.gpus["big"]
    assert make_cell(COLUMNS["memory"], big, None, en).sort_value == 80
    assert make_cell(COLUMNS["ray_tracing"], big, None, en).sort_value == 0  # False sorts as 0
    assert make_cell(COLUMNS["ray_tracing"], big, None, en).number is None  # …but is not a figure
    assert make_cell(COLUMNS["memory_type"], big, None, en).sort_value is None
    price = make_cell(COLUMNS["usd_per_bf16_pflop_hour"], big, dataset.price("big"), en)
    assert price.sort_value == round(2880 / 989, 6)  # an exact fraction, to six decimals
    assert price.number == Fraction(2880, 989)


def test_a_hand_made_gpu_and_offer_make_their_own_cells(dataset, en):
    # A 141 GB GPU at $3.50: 141 × 0.8 ÷ 16 = 7.05 B → 7; × 8 = 56.4 B → 55.
    gpu = dataset.gpus["big"].model_copy(update={"id": "hand", "memory_gb": 141})
    offer = Price(3.5, dt.date(2026, 1, 1))
    assert make_cell(COLUMNS["train_1gpu"], gpu, offer, en).text == f"≈{NB}7B"
    assert make_cell(COLUMNS["train_8gpu"], gpu, offer, en).text == f"≈{NB}55B"
    assert make_cell(COLUMNS["price"], gpu, offer, en).text == "from $3.50"


def test_every_column_has_a_header_and_a_cell_for_every_gpu_in_both_languages(dataset, fr, en):
    for language in (fr, en):
        table = build_table(GPUS, list(COLUMNS), dataset, language)
        assert all(header.strip() for header in table.headers)
        assert all(cell.text.strip() for row in table.rows for cell in row.cells)


def test_catalogue_and_spec_columns_are_registered_columns():
    assert set(columns.CATALOGUE_COLUMNS) <= set(COLUMNS)
    assert columns.SPEC_COLUMNS <= set(COLUMNS)
    assert "train_8gpu" not in columns.SPEC_COLUMNS  # a sizing result, not a specification
    assert not COLUMNS["launch_year"].comparable  # "2022 ÷ 2021" means nothing
    assert COLUMNS["price"].higher_is_better is False


# --- unknown columns -----------------------------------------------------------------------------

def test_unknown_columns_models_and_precisions_are_problems_at_their_place(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    page = root / "content" / "fr" / "entrainement.md"
    edit(page, "columns: [memory,", "columns: [memroy, {id: decode_upper_bund, model: small-llm, precision: bf16}, "
                                    "{id: decode_upper_bound, model: smal-llm, precision: fp16}, memory,")
    edit(page, "verdict: [train_8gpu,", "verdict: [nothing_like_it, train_8gpu,")
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    library = load_library(root / "content", dataset, problems)
    assert problems.items == []  # the page loads: columns are checked against the registry afterwards
    check_columns(library, dataset, problems)
    found = {(p.path, p.line, p.message, p.hint) for p in problems.errors}
    path = "content/fr/entrainement.md"
    assert (path, 12, "unknown column `memroy`", "did you mean `memory`?") in found
    assert (path, 12, "unknown model column `decode_upper_bund`", "did you mean `decode_upper_bound`?") in found
    assert (path, 12, "unknown model `smal-llm`", "did you mean `small-llm`?") in found
    assert (path, 12, "unknown precision `fp16`", "use one of: bf16, fp8, int4, native") in found
    # Nothing close: the hint lists the columns there are.
    verdict = [p for p in problems.errors if p.message == "unknown column `nothing_like_it`"]
    assert len(verdict) == 1 and verdict[0].line == 14
    assert verdict[0].hint is not None and "train_8gpu" in verdict[0].hint
    assert len(problems.errors) == 5


def test_the_tiny_site_names_only_known_columns(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    check_columns(load_library(root / "content", dataset, problems), dataset, problems)
    assert problems.items == []
