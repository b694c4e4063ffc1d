"""Which pairs of GPUs buyers weigh, and each GPU's closest alternative (``structure.pairs``): the
rule as a property over every pair of the real catalogue (data/gpus.yaml), the closeness order, and
the handful of pairs a use-case page links."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from gpuguide.errors import Problems
from gpuguide.structure import pairs
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.pages import PairSubject

from sites import ROOT


@pytest.fixture(scope="module")
def catalogue() -> Dataset:
    loaded = load_dataset(ROOT / "data", Problems(ROOT))
    assert loaded is not None
    return loaded


def memory(gpu: Gpu) -> Fraction:
    return Fraction(str(gpu.memory_gb))


def test_a_pair_is_weighed_exactly_when_the_larger_memory_is_at_most_three_times_the_smaller(catalogue):
    weighed = 0
    for a, b in itertools.combinations(catalogue.gpus.values(), 2):
        expected = max(memory(a), memory(b)) <= 3 * min(memory(a), memory(b))
        assert pairs.weighed(a, b) is expected is pairs.weighed(b, a), (a.id, b.id)
        assert PairSubject(a, b).weighed is expected
        weighed += expected
    n = len(catalogue.gpus)
    assert 0 < weighed < n * (n - 1) // 2


def test_buyers_weigh_gpus_of_a_class_and_not_a_24_gb_card_against_a_288_gb_gpu(catalogue):
    gpus = catalogue.gpus
    for a, b in (("h100-sxm", "h200"), ("h100-sxm", "a100-sxm"), ("b200", "h100-sxm"), ("rtx-4090", "rtx-5090"),
                 ("l40s", "a100-sxm"), ("l4", "a10")):
        assert pairs.weighed(gpus[a], gpus[b]), (a, b)
    for a, b in (("a10", "b300"), ("rtx-4090", "mi355x"), ("l4", "h200"), ("rtx-3090", "h100-sxm")):
        assert not pairs.weighed(gpus[a], gpus[b]), (a, b)


def test_the_closest_alternative_has_the_nearest_memory_then_the_nearest_bandwidth(catalogue):
    gpus = list(catalogue.gpus.values())
    for gpu in gpus:
        closest = pairs.closest_alternative(gpu, gpus)
        others = [other for other in gpus if other.id != gpu.id and pairs.weighed(gpu, other)]
        if not others:
            assert closest is None
            continue
        assert closest is not None and closest.id != gpu.id and pairs.weighed(gpu, closest)
        assert all(pairs.closeness(gpu, closest) <= pairs.closeness(gpu, other) for other in others), gpu.id
    by_id = catalogue.gpus
    # 24 GB each, 1,008 against 936 GB/s; 80 GB each, 3,350 against 2,039 (the nearest of the 80 GB GPUs).
    assert pairs.closest_alternative(by_id["rtx-4090"], gpus).id == "rtx-3090"
    assert pairs.closest_alternative(by_id["h100-sxm"], gpus).id == "a100-sxm"
    assert pairs.closest_alternative(by_id["l40s"], gpus).id == "rtx-6000-ada"


def test_a_gpu_no_other_is_weighed_against_has_no_closest_alternative(catalogue):
    big, small = catalogue.gpus["b300"], catalogue.gpus["l4"]  # 288 GB against 24 GB
    assert pairs.closest_alternative(big, [big, small]) is None


def test_a_use_case_page_gets_a_handful_of_distinct_weighed_pairs_closest_first(catalogue):
    order = list(catalogue.gpus)
    gpus = list(catalogue.gpus.values())
    found = pairs.relevant_pairs(gpus, order)
    assert 0 < len(found) <= pairs.USE_CASE_PAIR_LINKS
    assert len({(a.id, b.id) for a, b in found}) == len(found)
    for a, b in found:
        assert order.index(a.id) < order.index(b.id)  # in catalogue order, as the page's address
        assert pairs.weighed(a, b)
    assert [pairs.closeness(a, b) for a, b in found] == sorted(pairs.closeness(a, b) for a, b in found)
    assert len(pairs.relevant_pairs(gpus, order, limit=3)) == 3
    # Only a pair weighed against each other, never a lone GPU with itself.
    assert pairs.relevant_pairs([catalogue.gpus["b300"], catalogue.gpus["l4"]], order) == []
