"""The bottom lines that open a comparison page (``figures.verdicts``): which of two GPUs to rent for
a use case, by the case the figures make (one cannot do the job, one holds larger jobs, one costs
less for the same job, one is faster per dollar, a tie, no offer), each case in its own words.
Cells are made by the column registry from the tiny site's GPUs or from hand-made variants of them;
the expected percentages and ratios are worked out here from the specifications and prices."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import re

import pytest
from bs4 import BeautifulSoup

from gpuguide.figures import verdicts
from gpuguide.figures.columns import COLUMNS
from gpuguide.figures.page_tables import Row, Table, make_cell
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.prices import Price
from gpuguide.structure.language import Language
from gpuguide.render.reads import Reads, tracked_language

NB, NN = "\u00a0", "\u202f"

Offer = tuple[Gpu, Price | None]

TRAINING = ["train_8gpu", "bf16", "usd_per_bf16_pflop_hour"]
MEMORY = ["memory", "bandwidth", "usd_per_gb_hour"]
RENDERING = ["ray_tracing", "memory", "usd_per_gb_hour"]
SCIENCE = ["fp64_useful", "fp64", "usd_per_fp64_tflop_hour"]


def variant(dataset: Dataset, name: str, **fields: object) -> Gpu:
    """The tiny site's ``big`` GPU renamed ``name``, with ``fields`` changed."""
    return dataset.gpus["big"].model_copy(update={"id": name.lower(), "model": name, **fields})


def offer(usd: float) -> Price:
    return Price(usd, dt.date(2026, 1, 1))


def two_rows(columns: list[str], first: Offer, second: Offer, language: Language) -> Table:
    registered = [COLUMNS[column] for column in columns]
    rows = tuple(Row(gpu, tuple(make_cell(column, gpu, price, language) for column in registered))
                 for gpu, price in (first, second))
    return Table(tuple(column.header(language) for column in registered), tuple(columns), rows, tuple(registered))


def bottom(use_cases: list[list[str]], first: Offer, second: Offer, language: Language) -> verdicts.Summary:
    """The bottom lines of a page comparing two GPUs (with their offers) for these use cases."""
    return verdicts.summary(two_rows(["price"], first, second, language),
                            [two_rows(columns, first, second, language) for columns in use_cases], language)


def line(columns: list[str], first: Offer, second: Offer, language: Language) -> tuple[str, str | None, str]:
    """One use case's verdict, pick and sentence as a reader reads it."""
    (found,) = bottom([columns], first, second, language).lines
    return found.verdict, found.pick, text(found.text)


def text(markup: object) -> str:
    return BeautifulSoup(str(markup), "lxml").get_text()


@pytest.fixture(scope="module")
def big(dataset: Dataset) -> Offer:
    return dataset.gpus["big"], dataset.price("big")  # 80 GB, 3,350 GB/s, 989 TFLOPS BF16, $2.88


# --- one cannot do the job -----------------------------------------------------------------------

def test_a_gpu_without_the_use_cases_requirement_cannot_do_it(dataset, big, en, fr):
    card = (dataset.gpus["card"], dataset.price("card"))  # ray tracing, $0.50
    assert line(RENDERING, big, card, en) == ("only", "card", "Rent the Card: the Big has no ray-tracing hardware.")
    assert line(RENDERING, big, card, fr)[2] == f"Louez la Card{NB}: la Big n’a pas de matériel de ray tracing."
    # Card's FP64 is 1/64 of its FP32: the Big does scientific computing.
    assert line(SCIENCE, big, card, en) == (
        "only", "big", "Rent the Big: the Card runs FP64 at a small fraction of its FP32 rate.")


def test_the_only_gpu_that_can_without_an_offer_is_still_the_answer(dataset, big, en):
    card = (dataset.gpus["card"], None)
    assert line(RENDERING, big, card, en) == ("only", "card", "Only the Card will do: the Big has no ray-tracing hardware.")


def test_a_use_case_neither_can_do_is_left_out(dataset, big, en):
    pcie = (dataset.gpus["pcie"], None)  # neither has ray-tracing hardware
    verdict, pick, sentence = line(RENDERING, big, pcie, en)
    assert (verdict, pick, sentence) == (verdicts.NEITHER, None, "")


def test_requirements_are_met_row_by_row(dataset, big, en):
    table = two_rows(RENDERING, big, (dataset.gpus["card"], None), en)
    assert verdicts.meets_requirements(table) == [False, True]
    assert verdicts.meets_requirements(two_rows(TRAINING, big, big, en)) == [True, True]  # no requirement


# --- one holds larger jobs -----------------------------------------------------------------------

def test_the_larger_gpu_wins_outright_when_a_unit_costs_less_on_it(dataset, big, en, fr):
    large = (variant(dataset, "Large", memory_gb=160), offer(4.00))
    # $4.00 ÷ 160 GB = $0.025 against $2.88 ÷ 80 = $0.036 per GB-hour: 1 − 0.025 ÷ 0.036 = 31 % less.
    assert line(MEMORY, big, large, en) == ("dominant", "large", (
        "Rent the Large: it has 160 GB of memory, against 80 GB, runs at the same speed and costs 31% less "
        "per GB of memory."))
    assert line(MEMORY, big, large, fr)[2] == (
        f"Louez la Large{NB}: elle a 160{NN}Go de mémoire, contre 80{NN}Go, va à la même vitesse et coûte "
        f"31{NB}% de moins par Go de mémoire.")


def test_when_the_smaller_gpu_costs_less_per_unit_the_choice_splits_by_the_jobs_size(dataset, big, en, fr):
    # An H200 against an H100 SXM: 141 GB trains 141 × 0.8 × 8 ÷ 16 = 56.4 B on 8 GPUs (≈ 55B), 80 GB
    # trains 32 B (≈ 30B); the same 989 TFLOPS at $4.19 and $2.88: $4.24 and $2.91 per PFLOP-hour,
    # 1 − 2.91 ÷ 4.24 = 31 % less on the smaller one.
    large = (variant(dataset, "Large", memory_gb=141), offer(4.19))
    assert line(TRAINING, big, large, en) == ("split", "large", (
        f"Rent the Large to train models beyond ≈{NB}30B, up to ≈{NB}55B on 8 GPUs, too large for the Big; "
        "below that, the Big does the same work for 31% less, at the same speed."))
    assert line(TRAINING, big, large, fr)[2] == (
        f"Louez la Large pour entraîner des modèles de plus de ≈{NB}30{NB}Md, jusqu’à ≈{NB}55{NB}Md sur 8 GPU, "
        f"trop grands pour la Big{NN}; en deçà, la Big fait le même travail pour 31{NB}% de moins, à la même vitesse.")


def test_a_split_says_when_the_cheaper_gpu_is_slower(dataset, big, en):
    # 160 GB at $6.00: $0.0375 per GB-hour against $0.036: the Big costs 4 % less, with less bandwidth.
    large = (variant(dataset, "Large", memory_gb=160, bandwidth_gbs=4800), offer(6.00))
    verdict, pick, sentence = line(MEMORY, big, large, en)
    assert (verdict, pick) == ("split", "large")
    assert sentence.endswith("below that, the Big costs 4% less per GB of memory, though it is slower.")


# --- the same capacity ---------------------------------------------------------------------------

def test_the_same_job_at_the_same_speed_goes_to_the_cheaper(dataset, big, en):
    cheap = (variant(dataset, "Cheap"), offer(2.00))  # $0.025 per GB-hour against $0.036: 31 % less
    assert line(MEMORY, big, cheap, en) == ("cheaper", "cheap", (
        "Both have 80 GB of memory; rent the Cheap, which costs 31% less per GB of memory, at the same speed."))


def test_faster_and_cheaper_per_unit_of_work(dataset, big, en):
    # 989 ÷ 312 = 3.17 times the BF16 throughput; $2.91 against $1.79 ÷ 0.312 = $5.74 per PFLOP-hour: 49 % less.
    pcie = (dataset.gpus["pcie"], offer(1.79))
    assert line(TRAINING, pcie, big, en) == ("faster-cheaper", "big", (
        f"Both train models of up to ≈{NB}30B on 8 GPUs; rent the Big, which has 3.2 times the BF16 throughput "
        "and does the same work for 49% less."))


def test_the_slower_gpu_can_be_the_cheaper_per_unit(dataset, big, en, fr):
    # 3,350 ÷ 1,935 = 1.73: 73 % more bandwidth on the Big; $1.79 ÷ 80 = $0.0224 against $0.036 per
    # GB-hour: 1 − 0.0224 ÷ 0.036 = 38 % less on the Pcie.
    pcie = (dataset.gpus["pcie"], offer(1.79))
    assert line(MEMORY, big, pcie, en) == ("per-dollar", "pcie", (
        "Both have 80 GB of memory; the Big has 73% more memory bandwidth, but the Pcie costs 38% less per GB "
        "of memory: rent the Pcie unless speed matters more than cost."))
    assert line(MEMORY, big, pcie, fr)[2] == (
        f"Les deux ont 80{NN}Go de mémoire{NN}; la Big a 73{NB}% de bande passante mémoire en plus, mais la Pcie "
        f"coûte 38{NB}% de moins par Go de mémoire{NB}: louez la Pcie, sauf si la vitesse compte plus que le coût.")


def test_at_the_same_cost_the_faster_wins(dataset, big, en):
    slow = (variant(dataset, "Slow", bandwidth_gbs=3000), offer(2.88))  # 3,350 ÷ 3,000 = 1.117: 12 % more
    assert line(MEMORY, big, slow, en) == ("faster", "big", (
        "Both have 80 GB of memory; rent the Big, which has 12% more memory bandwidth for the same cost."))


def test_equal_figures_are_a_tie(dataset, big, en, fr):
    twin = (variant(dataset, "Twin"), offer(2.88))
    assert line(MEMORY, big, twin, en) == ("tie", None, (
        "Both have 80 GB of memory; the same cost, at the same speed: a tie, rent whichever is available."))
    assert line(MEMORY, big, twin, fr)[2] == (
        f"Les deux ont 80{NN}Go de mémoire{NN}; le même coût, à la même vitesse{NB}: égalité, louez celle qui est "
        "disponible.")


def test_without_a_capacity_criterion_the_tie_on_speed_opens_the_sentence(dataset, big, en):
    # Scientific computing: the same 34 TFLOPS of FP64, at $2.00 against $2.88: 31 % less.
    cheap = (variant(dataset, "Cheap"), offer(2.00))
    assert line(SCIENCE, big, cheap, en) == ("cheaper", "cheap", (
        "Both compute 34 TFLOPS in FP64; rent the Cheap, which does the same FP64 work for 31% less."))


# --- offers --------------------------------------------------------------------------------------

def test_without_offers_the_gpus_are_compared_on_paper_and_the_page_says_so_once(dataset, en, fr):
    big, pcie = (dataset.gpus["big"], None), (dataset.gpus["pcie"], None)
    summary = bottom([TRAINING, MEMORY], big, pcie, en)
    assert text(summary.offer_note) == (
        "Neither GPU has an offer on the marketplace right now: below, they are compared on paper.")
    training, memory = summary.lines
    assert (training.verdict, training.pick, text(training.text)) == ("paper-faster", "big", (
        f"Both train models of up to ≈{NB}30B on 8 GPUs; the Big is the better choice, with 3.2 times the BF16 "
        "throughput."))
    assert (memory.verdict, memory.pick) == ("paper-faster", "big")
    large = (variant(dataset, "Large", memory_gb=160), None)
    assert line(MEMORY, pcie, large, fr) == ("paper-more", "large", (
        f"La Large est le meilleur choix{NB}: elle a 160{NN}Go de mémoire, contre 80{NN}Go."))
    assert line(["memory"], pcie, (variant(dataset, "Twin"), None), en) == (
        "paper-tie", None, "Both have 80 GB of memory; on paper, a tie.")


def test_with_one_offer_the_other_is_named_if_it_would_do_better(dataset, big, en):
    large = (variant(dataset, "Large", memory_gb=141), None)
    summary = bottom([TRAINING], big, large, en)
    assert text(summary.offer_note) == "Only the Big is on offer right now, from $2.88 an hour; the Large has none."
    (found,) = summary.lines
    assert (found.verdict, found.pick, text(found.text)) == ("unoffered-more", "big", (
        f"The Large trains models of up to ≈{NB}55B on 8 GPUs, against ≈{NB}30B, but it has no offer: rent the Big "
        "if your job fits it."))
    pcie = (dataset.gpus["pcie"], None)
    assert line(TRAINING, big, pcie, en) == ("offered-faster", "big", (
        f"Both train models of up to ≈{NB}30B on 8 GPUs; rent the Big, which has 3.2 times the BF16 throughput."))
    assert line(TRAINING, pcie, big, en)[:2] == ("offered-faster", "big")
    assert line(["memory"], big, pcie, en) == (
        "offered-tie", "big", "Both have 80 GB of memory; rent the Big, since the Pcie has no offer.")


def test_both_offered_with_a_figure_missing_for_the_cost_is_compared_on_paper(dataset, big, en):
    unpublished = (variant(dataset, "Quiet", bf16_tflops=None, memory_gb=160), offer(3.00))
    verdict, pick, _ = line(TRAINING, big, unpublished, en)
    assert (verdict, pick) == ("paper-more", "quiet")  # no price per PFLOP-hour without the BF16 figure


# --- the wording of differences ------------------------------------------------------------------

def test_a_speed_lead_from_twice_is_a_multiple_and_below_it_a_percentage(dataset, big, en):
    double = (variant(dataset, "Double", bandwidth_gbs=6700), offer(2.88))
    almost = (variant(dataset, "Almost", bandwidth_gbs=6600), offer(2.88))
    assert "2 times the memory bandwidth" in line(MEMORY, big, double, en)[2]
    assert "97% more memory bandwidth" in line(MEMORY, big, almost, en)[2]  # 6,600 ÷ 3,350 = 1.970


def test_a_tiny_saving_is_never_zero_per_cent(dataset, big, en):
    close = (variant(dataset, "Close"), offer(2.89))  # 1 − 2.88 ÷ 2.89 = 0.35 %
    sentence = line(MEMORY, big, close, en)[2]
    assert "0% less" not in sentence and "0.3% less" in sentence


def test_figures_shown_the_same_are_a_tie_whatever_the_exact_values(dataset, big, en):
    # 80 GB and 81 GB train 32 B and 32.4 B on 8 GPUs: both shown ≈ 30B, no lead.
    close = (variant(dataset, "EightyOne", memory_gb=81), offer(2.88))
    verdict, _, sentence = line(TRAINING, big, close, en)
    assert verdict != "split" and verdict != "dominant"
    assert sentence.startswith(f"Both train models of up to ≈{NB}30B on 8 GPUs")


# --- a page states each comparison once ----------------------------------------------------------

def test_a_comparison_an_earlier_use_case_stated_is_not_stated_again(dataset, big, en, fr):
    large = (variant(dataset, "Large", memory_gb=160), offer(4.00))
    first, second = bottom([MEMORY, MEMORY], big, large, en).lines
    assert text(first.text).startswith("Rent the Large: it has 160 GB of memory, against 80 GB")
    assert text(second.text) == (
        "The Large again: it has the larger memory, runs at the same speed and also costs less per GB of memory.")
    assert (second.verdict, second.pick) == (first.verdict, first.pick)
    _, french = bottom([MEMORY, MEMORY], big, large, fr).lines
    assert text(french.text) == (
        f"Là encore, la Large{NB}: elle a la plus grande mémoire, va à la même vitesse et coûte aussi moins cher "
        "par Go de mémoire.")


def _offers(dataset: Dataset) -> list[Offer]:
    """GPUs that make every case: prices or none, more or less memory, speed and FP64."""
    big, pcie, card = (dataset.gpus[gpu_id] for gpu_id in ("big", "pcie", "card"))
    return [(big, offer(2.88)), (big.model_copy(update={"id": "big-off", "model": "Big Off"}), None),
            (pcie, offer(1.79)), (pcie.model_copy(update={"id": "pcie-off", "model": "Pcie Off"}), None),
            (card, offer(0.5)), (variant(dataset, "Large", memory_gb=141), offer(4.19)),
            (variant(dataset, "Large Off", memory_gb=141), None),
            (variant(dataset, "Huge", memory_gb=192, bandwidth_gbs=5300, bf16_tflops=1307.4), offer(4.16)),
            (variant(dataset, "Twin"), offer(2.88)), (variant(dataset, "Dear"), offer(3.5))]


def test_every_case_is_deterministic_and_the_same_whichever_order_the_gpus_come_in(dataset, en, fr):
    cases = set()
    for language in (en, fr):
        for first, second in itertools.combinations(_offers(dataset), 2):
            use_cases = [TRAINING, MEMORY, RENDERING, SCIENCE]
            forward, backward = bottom(use_cases, first, second, language), bottom(use_cases, second, first, language)
            assert bottom(use_cases, first, second, language) == forward  # the same input, the same lines
            for ahead, behind in zip(forward.lines, backward.lines):
                assert (ahead.verdict, ahead.pick) == (behind.verdict, behind.pick), (first[0].id, second[0].id)
                cases.add(ahead.verdict)
    assert {"only", "neither", "dominant", "split", "cheaper", "faster-cheaper", "per-dollar", "tie",
            "paper-more", "paper-faster", "offered-more", "unoffered-more"} <= cases


def test_no_figure_is_printed_twice_in_a_bottom_line_and_each_is_marked(dataset, en, fr):
    for language in (en, fr):
        for first, second in itertools.combinations(_offers(dataset), 2):
            for found in bottom([TRAINING, MEMORY, RENDERING, SCIENCE], first, second, language).lines:
                figures = [span.get_text() for span in BeautifulSoup(str(found.text), "lxml").select("span.figure")]
                assert len(figures) == len(set(figures)), text(found.text)
                # Every number of the sentence is in a marked figure (but "8 GPUs", "BF16", "FP64"…).
                unmarked = re.sub(r'<span class="figure"[^>]*>.*?</span>', "", str(found.text))
                assert not re.search(r"\d[\d.,]*\s?(%|GB|Go|B\b|Md|TFLOPS|\$)", unmarked), str(found.text)


# --- the memo (``summary`` is memoised by value) -------------------------------------------------

def test_a_ui_string_edited_between_two_builds_is_in_the_next_bottom_lines(dataset, big, en):
    large = (variant(dataset, "Large", memory_gb=160), offer(4.00))
    before = line(MEMORY, big, large, en)[2]
    assert before.startswith("Rent the Large:")
    # The dev server keeps the memo across builds; an edit of data/ui makes a new language.
    edited = dataclasses.replace(en, strings={**en.strings, "bottom_dominant": "Take the {pick}: it {holds}."})
    assert line(MEMORY, big, large, edited)[2] == "Take the Large: it has 160 GB of memory, against 80 GB."
    assert line(MEMORY, big, large, en)[2] == before  # and back


def test_bottom_lines_found_in_the_memo_note_the_ui_strings_they_were_written_from(dataset, big, en):
    # A page's reads decide whether it is rendered again after a UI string edit: a hit must note
    # the same strings as the computation it stands for.
    large = (variant(dataset, "Wide", memory_gb=160), offer(4.00))

    def reads() -> set[tuple[str, str]]:
        noted = Reads()
        bottom([MEMORY, RENDERING], big, large, tracked_language(en, noted))
        return {key for table, key in noted.keys if table == "ui-en"}

    first, second = reads(), reads()
    assert "bottom_dominant" in first and "bottom_lacks_ray_tracing" not in first
    assert first == second


def test_the_memo_tells_a_yes_from_a_one(dataset, big, en):
    # 1 == True and they hash alike: the cells' types are part of the key.
    cell = make_cell(COLUMNS["ray_tracing"], big[0], big[1], en)
    yes = Row(big[0], (dataclasses.replace(cell, value=True),))
    one = Row(big[0], (dataclasses.replace(cell, value=1),))
    assert verdicts._table_key(Table((), (), (yes,))) != verdicts._table_key(Table((), (), (one,)))
