"""The configuration to rent for a workload, without every GPU type's answer.

``planner.plans`` answers for every GPU type and sorts them; most of what the pages print needs only
the first rentable answer (a model's cheapest configuration per format and preset, its intro, its
relatives, the requirement tables). Its hourly price is a number of GPUs times one GPU's price, and
no GPU type can be rented on fewer GPUs than the first count whose memory holds the workload: that
count times its price is a floor of its key's price (``planner.gpu_answer``'s sort key starts with
the group, 0 for a configuration to rent, then the price). The GPU types are answered cheapest
floor first, and the search stops at the first floor above the best price found: the answer is
``planner.cheapest(planner.plans(...))``'s, found with a few answers instead of one per GPU type
(``bench/README.md``: what it saves; ``tests/figures/test_cheapest.py`` compares the two over every
model, preset and format, at 20 and 100 GPU types).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from gpuguide.figures import engine_budget, planner
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.expression import Expr
from gpuguide.figures.planner import Plan
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.figures.sizing import Real, exact


def cheapest_plan(shape: ModelShape, workload: Workload, gpus: Sequence[ServingGpu],
                  min_user_tokens_per_second: Real | None = None) -> Plan | None:
    """``planner.cheapest(planner.plans(shape, workload, gpus, min_user_tokens_per_second))``.

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256,
    ...                       hidden_size=4096)
    >>> gpus = [ServingGpu("h100-sxm", 80, 3350, {"bf16": 989}, 8, 2.88), ServingGpu("a100-sxm", 80, 2039, {"bf16": 312}, 8, 1.79)]
    >>> cheapest_plan(llama_8b, Workload(8192, 1, "bf16"), gpus).gpu_id
    'a100-sxm'
    """
    target = exact(min_user_tokens_per_second) if min_user_tokens_per_second is not None else Fraction(0)
    counts = [n for n in engine_budget.GPU_COUNTS if engine_budget.tensor_parallel_allowed(shape, n)]
    floors = []
    for order, gpu in enumerate(gpus):
        price = gpu.usd_per_gpu_hour
        if price is None:
            continue  # no offer: never a configuration to rent
        assert not isinstance(price, Expr)  # a price is an input only in the planner's program
        fewest = next((n for n in counts if planner.held(shape, workload, n)[2] <= gpu.engine_budget_bytes), None)
        if fewest is not None:
            floors.append((fewest * exact(price), order, gpu))
    best_key: list[Any] | None = None
    best: Plan | None = None
    for floor, order, gpu in sorted(floors, key=lambda item: item[:2]):
        if best is not None and best.usd_per_hour is not None and floor > best.usd_per_hour:
            break  # this GPU type and every one after it cost more per hour than the best found
        key, plan = planner.answer(shape, workload, gpu, order, target)
        if plan.rentable and (best_key is None or key < best_key):
            best_key, best = key, plan
    return best
