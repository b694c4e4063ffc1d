"""The sentences that open a comparison page (``figures.verdicts``): which GPU wins a criterion
and by how much, ties, figures one GPU lacks, yes/no criteria. Cells are made by the column
registry from the tiny site's GPUs, or from hand-made variants of them; the expected ratios and
percentages are worked out here from the specifications."""

from __future__ import annotations

import datetime as dt

from gpuguide.figures import verdicts
from gpuguide.figures.columns import COLUMNS, build_table, make_cell
from gpuguide.structure.data import Dataset, Gpu, Price

NB, NN = "\u00a0", "\u202f"



def variant(dataset: Dataset, name: str, **fields: object) -> Gpu:
    """The tiny site's ``big`` GPU renamed ``name``, with ``fields`` changed."""
    return dataset.gpus["big"].model_copy(update={"id": name.lower(), "model": name, **fields})


def offer(usd: float) -> Price:
    return Price(usd, dt.date(2026, 1, 1))


def say(column_id: str, first: tuple[Gpu, Price | None], second: tuple[Gpu, Price | None], language) -> str | None:
    """The verdict sentence for two GPUs (with their offers) on one registered column."""
    column = COLUMNS[column_id]
    (gpu_a, price_a), (gpu_b, price_b) = first, second
    return verdicts.sentence(column, (gpu_a.model, make_cell(column, gpu_a, price_a, language)),
                             (gpu_b.model, make_cell(column, gpu_b, price_b, language)), language)


# --- who comes out ahead -------------------------------------------------------------------------

def test_a_larger_figure_below_twice_is_given_in_per_cent(dataset, fr, en):
    big, pcie = dataset.gpus["big"], dataset.gpus["pcie"]
    # 3,350 ÷ 1,935 = 1.731: 73 % more.
    assert say("bandwidth", (big, None), (pcie, None), en) == (
        "Memory bandwidth, which bounds decoding speed: 3,350 GB/s (Big) against 1,935 GB/s (Pcie), 73% more.")
    assert say("bandwidth", (big, None), (pcie, None), fr) == (
        f"Bande passante mémoire, qui borne la vitesse de décodage\u00a0: 3{NN}350{NN}Go/s (Big) contre "
        f"1{NN}935{NN}Go/s (Pcie), soit 73{NB}% de plus.")


def test_the_winner_comes_first_whichever_order_the_gpus_are_given(dataset, en):
    big, pcie = dataset.gpus["big"], dataset.gpus["pcie"]
    assert say("bandwidth", (pcie, None), (big, None), en) == say("bandwidth", (big, None), (pcie, None), en)


def test_from_twice_the_difference_is_a_multiple(dataset, en):
    big, card = dataset.gpus["big"], dataset.gpus["card"]
    # 80 GB ÷ 24 GB = 3.33: "3.3 times as much".
    assert say("memory", (card, None), (big, None), en) == (
        "Memory: 80 GB (Big) against 24 GB (Card), 3.3 times as much.")


def test_exactly_twice_is_a_multiple_and_just_below_is_a_percentage(dataset, en):
    card = dataset.gpus["card"]
    double = variant(dataset, "Double", memory_gb=48)
    almost = variant(dataset, "Almost", memory_gb=47)
    assert say("memory", (double, None), (card, None), en).endswith(", 2 times as much.")
    assert say("memory", (almost, None), (card, None), en).endswith(", 96% more.")  # 47 ÷ 24 = 1.958


def test_for_a_price_the_lower_wins_and_the_saving_is_in_per_cent(dataset, fr, en):
    big, card = dataset.gpus["big"], dataset.gpus["card"]
    # 1 − 0.50 ÷ 2.88 = 0.826: 83 % less, the Card first though it was given second.
    assert say("price", (big, dataset.price("big")), (card, dataset.price("card")), en) == (
        "Price/h: from $0.50 (Card) against from $2.88 (Big), 83% less.")
    assert say("price", (big, dataset.price("big")), (card, dataset.price("card")), fr).endswith(
        f"soit 83{NB}% de moins.")


def test_a_lower_price_never_reads_as_a_multiple(dataset, en):
    cheap, dear = variant(dataset, "Cheap"), variant(dataset, "Dear")
    # $1 against $10: 90 % less, never "10 times".
    text = say("price", (dear, offer(10)), (cheap, offer(1)), en)
    assert text == "Price/h: from $1.00 (Cheap) against from $10.00 (Dear), 90% less."


# --- ties ----------------------------------------------------------------------------------------

def test_equal_figures_are_the_same_on_both(dataset, fr, en):
    big, pcie = dataset.gpus["big"], dataset.gpus["pcie"]  # both 80 GB
    assert say("memory", (big, None), (pcie, None), en) == "Memory: the same on both, 80 GB."
    assert say("train_8gpu", (big, None), (pcie, None), fr) == (
        f"Plus grand modèle entraîné en entier sur 8 GPU\u00a0: identique sur les deux, ≈{NB}30{NB}Md.")


def test_different_exact_values_shown_the_same_are_nearly_the_same(dataset, en):
    # 80 GB and 81 GB train 32 B and 32.4 B on 8 GPUs: both shown "≈ 30B", not "the same".
    a, b = variant(dataset, "Eighty"), variant(dataset, "EightyOne", memory_gb=81)
    assert say("train_8gpu", (a, None), (b, None), en) == (
        f"Largest model trained in full on 8 GPUs: nearly the same, ≈{NB}30B (Eighty) and ≈{NB}30B (EightyOne).")


def test_a_ratio_within_a_thousandth_is_nearly_the_same(dataset, en):
    # 80.03 ÷ 80 = 1.000375: the texts differ, the ratio reads "≈ 1" (it rounds to 1.000).
    a, b = variant(dataset, "A", memory_gb=80.03), variant(dataset, "B", memory_gb=80)
    assert say("memory", (a, None), (b, None), en) == "Memory: nearly the same, 80.03 GB (A) and 80 GB (B)."


def test_a_tiny_lead_is_never_zero_per_cent_more(dataset, en):
    a, b = variant(dataset, "A", memory_gb=80.3), variant(dataset, "B", memory_gb=80)
    text = say("memory", (a, None), (b, None), en)
    assert "0% more" not in text and "0.4% more" in text  # 80.3 ÷ 80 − 1 = 0.375 %: one decimal under 1 %


def test_a_tiny_saving_is_never_zero_per_cent_less(dataset, en):
    a, b = variant(dataset, "A"), variant(dataset, "B")
    text = say("price", (a, offer(2.88)), (b, offer(2.89)), en)
    assert "0% less" not in text and "0.3% less" in text  # 1 − 2.88 ÷ 2.89 = 0.35 %


# --- figures one lacks, yes/no, neutral criteria -------------------------------------------------

def test_when_one_gpu_lacks_the_figure_each_is_stated(dataset, fr, en):
    big, pcie = dataset.gpus["big"], dataset.gpus["pcie"]
    assert say("tdp", (big, None), (pcie, None), en) == "Max. power: 700 W (Big), Not published (Pcie)."
    assert say("fp8", (big, None), (pcie, None), en) == "FP8 tensor: 1,979 TFLOPS (Big), Not supported (Pcie)."
    assert say("usd_per_bf16_pflop_hour", (big, dataset.price("big")), (pcie, None), fr) == (
        f"Prix du PFLOP-heure BF16\u00a0: 2,91{NB}$US (Big), Aucune offre (Pcie).")


def test_when_neither_gpu_has_the_figure_there_is_no_sentence(dataset, en):
    # Neither pcie nor card publishes FP64 tensor throughput.
    assert say("fp64_tensor", (dataset.gpus["pcie"], None), (dataset.gpus["card"], None), en) is None


def test_yes_no_criteria_say_both_neither_or_which(dataset, fr, en):
    big, pcie, card = dataset.gpus["big"], dataset.gpus["pcie"], dataset.gpus["card"]
    assert say("fp64_useful", (big, None), (pcie, None), en) == "Useful FP64: both."
    assert say("ray_tracing", (big, None), (pcie, None), en) == "Ray-tracing hardware: neither."
    assert say("ray_tracing", (big, None), (card, None), en) == "Ray-tracing hardware: only the Card."
    assert say("fp64_useful", (big, None), (card, None), fr) == "FP64 utile\u00a0: Big seulement."


def test_criteria_without_a_better_side_state_each_value(dataset, en):
    big, pcie, card = dataset.gpus["big"], dataset.gpus["pcie"], dataset.gpus["card"]
    # A launch year is not compared (2022 ÷ 2021 means nothing), nor is a segment.
    assert say("launch_year", (big, None), (pcie, None), en) == "Launch: 2022 (Big), 2021 (Pcie)."
    assert say("segment", (big, None), (card, None), en) == "Segment: Data centre (Big), Consumer (Card)."


def test_criterion_is_the_verdict_wording_or_else_the_header(en):
    assert verdicts.criterion(COLUMNS["bandwidth"], en) == "Memory bandwidth, which bounds decoding speed"
    assert "verdict_tdp" not in en.strings
    assert verdicts.criterion(COLUMNS["tdp"], en) == "Max. power"  # column_tdp


# --- the summary ---------------------------------------------------------------------------------

def test_summary_follows_the_columns_and_drops_criteria_neither_has(dataset, en):
    table = build_table(["pcie", "card"], ["fp64_tensor", "memory", "bandwidth"], dataset, en)
    sentences = verdicts.summary(table, en)
    # fp64_tensor: neither publishes it, no sentence. 80 ÷ 24 = 3.33; 1,935 ÷ 1,008 = 1.92: 92 % more.
    assert sentences == ["Memory: 80 GB (Pcie) against 24 GB (Card), 3.3 times as much.",
                         ("Memory bandwidth, which bounds decoding speed: 1,935 GB/s (Pcie) against 1,008 GB/s (Card), "
                         "92% more.")]


def test_summary_of_the_tiny_use_case_verdict(dataset, en):
    # tests/fixtures/tiny/content/*/training.md: verdict [train_8gpu, bandwidth, usd_per_bf16_pflop_hour].
    table = build_table(["big", "card"], ["train_8gpu", "bandwidth", "usd_per_bf16_pflop_hour"], dataset, en)
    train, bandwidth, price = verdicts.summary(table, en)
    # 8 × 64 ÷ 16 = 32 B against 8 × 19.2 ÷ 16 = 9.6 B: 3.3 times, shown as ≈ 30B and ≈ 9B.
    assert train == (f"Largest model trained in full on 8 GPUs: ≈{NB}30B (Big) against ≈{NB}9B (Card), "
                     "3.3 times as much.")
    assert bandwidth.endswith("3.3 times as much.")  # 3,350 ÷ 1,008 = 3.32
    # $2.88 ÷ 0.989 = $2.912 against $0.50 ÷ 0.1652 = $3.027 per PFLOP-hour: 1 − 2.912 ÷ 3.027 = 3.8 % → 4 %.
    assert price == "Price per BF16 PFLOP-hour: $2.91 (Big) against $3.03 (Card), 4% less."
