"""The serving planner: for a workload, each GPU type's smallest configuration that holds it, its
bounds and price, the launch settings an engine needs, and why the other GPU types lose.

One builder, ``gpu_answer``, states every rule once. Called with numbers (a workload the pages show)
it computes the answer; called with the planner's inputs (``expression.var``) and a GPU type whose
figures are inputs too (``ProgramGpu``) it builds the program the planner's script evaluates in the
reader's browser, once for each GPU type (``planner_program``): the same formulas and the same
choices, one definition and two evaluators. A program reads nothing of the data but its model's
shape, so a site builds one per model, not one per model and GPU type.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from gpuguide.figures import engine_budget, roofline, serving
from gpuguide.figures.engine_budget import ProgramGpu, ServingGpu
from gpuguide.figures.expression import (Expr, at_most, below, both, ceil, choose, first, floor, negate, or_else, select,
                                         significant, symbolic)
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.figures.sizing import GB, Real, exact

#: Why a GPU type is not the one to rent: it cannot hold the workload within 8 GPUs (``memory``),
#: only with more GPUs than share a fast link (``fast_link``), its bound is below the per-user
#: speed asked for (``speed``), or it has no live offer (``no_offer``).
Reason = Literal["memory", "fast_link", "speed", "no_offer"]
#: The order of the answer: rentable first, then by why the others lose.
REASONS: tuple[Reason, ...] = ("no_offer", "speed", "fast_link", "memory")
#: ``gpu_answer``'s reason code → reason (code -1: a configuration to rent).
REASON_CODES: tuple[Reason, ...] = ("memory", "fast_link", "speed", "no_offer")

#: The KV-cache formats the planner offers, in the order of its ``kv`` input.
KV_FORMATS = tuple(serving.KV_CACHE_BYTES)
#: A sort value past every real price: rows without one come last within their group.
NO_PRICE = 10**9


def formats_for(shape: ModelShape) -> tuple[str, ...]:
    """The weight formats a model is planned in: BF16, FP8, 4-bit, and its published format when that
    is none of them or only part of its weights use it (the planner's ``weights`` input indexes this)."""
    native = shape.native_format
    if native is not None and (native not in serving.SERVING_FORMATS or shape.native_quantized_parameters):
        return (*serving.SERVING_FORMATS, "native")
    return serving.SERVING_FORMATS


@dataclass(frozen=True)
class Shown:
    """The figures a row prints, rounded once here for both evaluators: memory up to a tenth of a GB
    (weights and KV cache each, so parts and totals add up), a budget down, speeds down to whole
    tokens per second, the first token up and the price per million down to three digits."""

    used_gb: Any
    budget_gb: Any
    user_tokens_per_second: Any
    total_tokens_per_second: Any
    first_token_seconds: Any
    usd_per_million_tokens: Any


def shown(weights_bytes: Any, kv_bytes: Any, budget_bytes: Any, user: Any, total: Any, first_token: Any,
          per_million: Any) -> Shown:
    def rounded(value: Any, rule: Any) -> Any:
        return None if value is None else rule(value)

    return Shown(ceil(weights_bytes * 10 / GB) / 10 + ceil(kv_bytes * 10 / GB) / 10,
                 floor(budget_bytes * 10 / GB) / 10, rounded(user, floor), rounded(total, floor),
                 rounded(first_token, lambda v: significant(v, 3, up=True)),
                 rounded(per_million, lambda v: significant(v, 3, up=False)))


@functools.lru_cache(maxsize=8192)
def held(shape: ModelShape, workload: Workload, count: int) -> tuple[Any, Any, Any]:
    """The weights, the KV cache and their sum that each of ``count`` GPUs holds: the same for every
    GPU type a plan compares, so computed once for all of them."""
    weights = serving.weights_bytes(shape, workload.weights) / count
    kv = serving.kv_cache_bytes(shape, workload.context_tokens, workload.kv_cache, workload.users) * \
        engine_budget.kv_share_per_gpu(shape, count)
    return weights, kv, weights + kv


class _Candidate:
    """One configuration of ``count`` GPUs for ``workload``, each figure computed when first asked
    for: a page's answer needs the figures of one count, the program those of every count."""

    def __init__(self, shape: ModelShape, workload: Workload, gpu: ServingGpu | ProgramGpu, count: int):
        self.shape, self.workload, self.gpu, self.count = shape, workload, gpu, count
        self.linked = count == 1 or at_most(count, gpu.fast_link_gpus)
        self.weights, self.kv, self.memory = held(shape, workload, count)
        price = gpu.usd_per_gpu_hour
        self.price = None if price is None else (price if isinstance(price, Expr) else exact(price)) * count
        self.native = roofline.runs_natively(gpu, shape, workload.weights)

    @functools.cached_property
    def bounds(self) -> roofline.Bounds | None:
        return roofline.decode_bounds(self.shape, self.workload, self.gpu, self.count, fast_link=self.linked)

    @functools.cached_property
    def per_million(self) -> Any:
        return roofline.usd_per_million_tokens(self.price, self.bounds.total_tokens_per_second if self.bounds else None)

    def field(self, name: str) -> Any:
        """A figure by name: ``per_million`` or one of ``BOUNDS``."""
        if name == "per_million":
            return self.per_million
        return None if self.bounds is None else getattr(self.bounds, BOUNDS[name])


#: ``_Candidate.field``'s names of the bounds.
BOUNDS = {"user": "user_tokens_per_second", "total": "total_tokens_per_second", "first_token": "first_token_seconds"}


#: What ``gpu_answer`` gives of the configuration it shows (and ``Shown``'s rounded figures of it).
FIELDS = ("memory", "weights", "kv", "user", "total", "first_token", "price", "per_million", "native", "count")


def gpu_answer(shape: ModelShape, workloads: Sequence[Workload], which: Any, gpu: ServingGpu | ProgramGpu, order: Any,
               target: Any) -> dict[str, Any]:
    """One GPU type's answer. ``workloads`` are the (weights, KV cache) variants of one context and
    number of users, ``which`` the index of the one asked for (with one variant: 0); ``target`` the
    per-user speed asked for (0: none). Numbers in, numbers out; the planner's inputs in (and a
    ``ProgramGpu``: every GPU type's figures), a program."""
    counts = [n for n in engine_budget.GPU_COUNTS if engine_budget.tensor_parallel_allowed(shape, n)]
    variants = [[_Candidate(shape, workload, gpu, n) for workload in workloads] for n in counts]

    @functools.cache  # asked for again by the tests, the row and the sort key
    def value(n_index: int, name: str) -> Any:
        """The figure ``name`` of the ``n_index``-th count, in the variant asked for."""
        options = variants[n_index]
        if name in ("memory", "weights", "kv", "price", "native", "count", "linked"):
            return select(which, [getattr(option, name) for option in options])
        return choose(which, len(options), lambda number: options[number].field(name))

    fits = [at_most(value(i, "memory"), gpu.engine_budget_bytes) for i in range(len(counts))]
    linked = [n == 1 or at_most(n, gpu.fast_link_gpus) for n in counts]

    def fast_enough(i: int) -> Any:
        user = value(i, "user")
        return at_most(target, 0) if user is None else at_most(target, user)

    meets = [both(fits[i], linked[i], or_else(at_most(target, 0), functools.partial(fast_enough, i)))
             for i in range(len(counts))]
    chosen = first(meets)
    first_fit = first(fits)
    last_linked = _last(linked)  # counts only grow: the largest linked
    no_offer = below(gpu.offered, 1) if isinstance(gpu, ProgramGpu) else gpu.usd_per_gpu_hour is None
    # -1: rent; else an index of REASON_CODES, the first that holds.
    code = first([below(first_fit, 0), below(first([both(f, l) for f, l in zip(fits, linked)]), 0),
                  below(chosen, 0), no_offer])
    shown_index = select(code + 1, [chosen, len(counts) - 1, first_fit, last_linked, chosen])
    row = {name: choose(shown_index, len(counts), lambda i: value(i, name)) for name in FIELDS}
    figures = shown(row["weights"], row["kv"], gpu.engine_budget_bytes, row["user"], row["total"],
                    row["first_token"], row["per_million"])
    row.update({field: getattr(figures, field) for field in Shown.__dataclass_fields__})
    row["code"] = code
    group = select(code + 1, [0, 1 + REASONS.index("memory"), 1 + REASONS.index("fast_link"),
                              1 + REASONS.index("speed"), 1 + REASONS.index("no_offer")])
    # Cheapest rentable first (by hourly price, then price per million tokens, fewer GPUs, more
    # bandwidth, the file order), then the others by why they lose. No price or no bound: never a
    # figure to sort on.
    bandwidth: Any
    if isinstance(gpu, ProgramGpu):
        price_key = select(gpu.offered, [0, row["price"]])
        per_million_key = select(gpu.priced, [NO_PRICE, row["per_million"]])
        bandwidth = gpu.sort_bandwidth
    else:
        price_key = row["price"] if gpu.usd_per_gpu_hour is not None else 0
        per_million_key = row["per_million"] if gpu.usd_per_gpu_hour is not None and gpu.bandwidth_gbs is not None \
            else NO_PRICE
        bandwidth = exact(gpu.bandwidth_gbs) if gpu.bandwidth_gbs is not None else Fraction(0)
    row["key"] = [group, price_key, per_million_key,
                  select(code + 1, [row["count"], 99, row["count"], row["count"], row["count"]]), -bandwidth, order]
    return row


def _last(flags: Sequence[Any]) -> Any:
    """The index of the last true one of ``flags``, true up to some point and false after it (the
    first always true)."""
    if not symbolic(*flags):
        return max(i for i, flag in enumerate(flags) if flag)
    after = first([negate(flag) for flag in flags])  # the first false one, -1 when none is
    return select(after + 1, [len(flags) - 1, *range(-1, len(flags) - 1)])


@dataclass(frozen=True)
class Plan:
    """One GPU type's answer to a workload, in numbers."""

    gpu_id: str
    gpu_count: int | None  # the configuration shown; None: none within 8 GPUs holds it
    reason: Reason | None  # None: a configuration to rent
    memory_per_gpu_bytes: Fraction  # what each GPU holds (at 8 GPUs when nothing fits)
    budget_per_gpu_bytes: Fraction
    bounds: roofline.Bounds | None  # None: bandwidth not published, or nothing fits
    usd_per_hour: Fraction | None  # the configuration's price; None: no offer
    usd_per_million_tokens: Fraction | None
    native: bool  # the GPU has the tensor cores of the format (else weight-only: no speed-up)
    shown: Shown  # the figures as the pages print them

    @property
    def rentable(self) -> bool:
        return self.reason is None


def plan_gpu(shape: ModelShape, workload: Workload, gpu: ServingGpu,
             min_user_tokens_per_second: Real | None = None, order: int = 0) -> Plan:
    """The fewest GPUs of ``gpu``'s type, within its fast-link group, that hold ``workload`` (and
    whose per-user bound reaches ``min_user_tokens_per_second``, when given).

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256,
    ...                       hidden_size=4096)
    >>> l4 = ServingGpu("l4", 24, 300, {"bf16": 121, "fp8": 242.5}, 1, None)
    >>> p = plan_gpu(llama_8b, Workload(8192, 1, "bf16"), l4)
    >>> p.gpu_count, p.reason, int(p.bounds.user_tokens_per_second)
    (1, 'no_offer', 18)
    >>> plan_gpu(llama_8b, Workload(32_768, 10, "bf16"), l4).reason  # 43 GB of KV cache: one L4 cannot
    'fast_link'
    """
    target = exact(min_user_tokens_per_second) if min_user_tokens_per_second is not None else Fraction(0)
    return answer(shape, workload, gpu, order, target)[1]


@functools.lru_cache(maxsize=65536)
def answer(shape: ModelShape, workload: Workload, gpu: ServingGpu, order: int,
           target: Fraction) -> tuple[list[Any], Plan]:
    """``gpu_answer`` in numbers, with its sort key: the pages of both languages ask the same."""
    row = gpu_answer(shape, [workload], 0, gpu, order, target)
    return row["key"], _plan(row, gpu)


def _plan(row: dict[str, Any], gpu: ServingGpu) -> Plan:
    code = int(row["code"])
    reason = None if code < 0 else REASON_CODES[code]
    count = None if reason == "memory" else int(row["count"])
    bounds = None
    if reason != "memory" and row["total"] is not None:
        bounds = roofline.Bounds(row["user"], row["total"], row["first_token"], None)
    shown_row = Shown(**{field: row[field] for field in Shown.__dataclass_fields__})
    return Plan(gpu.id, count, reason, row["memory"], gpu.engine_budget_bytes, bounds,
                row["price"] if count is not None else None,
                row["per_million"] if count is not None else None, bool(row["native"]), shown_row)


def plans(shape: ModelShape, workload: Workload, gpus: Iterable[ServingGpu],
          min_user_tokens_per_second: Real | None = None) -> list[Plan]:
    """Every GPU type's plan, the cheapest rentable first (by hourly price, then price per million
    tokens, fewer GPUs, more bandwidth, the file order), then those without an offer, then the ones
    that lose on speed, on the fast link, on memory.

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256,
    ...                       hidden_size=4096)
    >>> gpus = [ServingGpu("h100-sxm", 80, 3350, {"bf16": 989}, 8, 2.88), ServingGpu("a100-sxm", 80, 2039, {"bf16": 312}, 8, 1.79)]
    >>> [(p.gpu_id, p.gpu_count) for p in plans(llama_8b, Workload(8192, 1, "bf16"), gpus)]
    [('a100-sxm', 1), ('h100-sxm', 1)]
    """
    target = exact(min_user_tokens_per_second) if min_user_tokens_per_second is not None else Fraction(0)
    answers = [answer(shape, workload, gpu, order, target) for order, gpu in enumerate(gpus)]
    return [plan for _, plan in sorted(answers, key=lambda item: item[0])]


def cheapest(found: list[Plan]) -> Plan | None:
    """The configuration to rent: the first rentable plan, if any."""
    return next((plan for plan in found if plan.rentable), None)


# --- Launch settings -----------------------------------------------------------------------------

def vllm_arguments(shape: ModelShape, workload: Workload, gpu_count: Any, weights_index: Any = None,
                   kv_index: Any = None) -> tuple[tuple[str, Any], ...]:
    """The vLLM settings that start this configuration as it was sized: the GPUs it splits over, the
    context and sequences its KV cache was sized for, its cache format, the memory share the
    budget counted on; ``--quantization fp8`` quantizes a 16-bit checkpoint when it loads. A value
    of None leaves its argument out. (The program passes the format indexes instead of the names.)

    >>> shape = ModelShape(70_553_706_496, 80, 8, 128, 131_072, attention_heads=64)
    >>> command_arguments(vllm_arguments(shape, Workload(32_768, 10, "fp8", "fp8"), 2))
    '--tensor-parallel-size 2 --max-model-len 32768 --kv-cache-dtype fp8 --gpu-memory-utilization 0.9 --max-num-seqs 10 --quantization fp8'
    """
    formats = formats_for(shape)
    kv_names = ["fp8" if kvf == "fp8" else "auto" for kvf in KV_FORMATS]
    quantizes = ["fp8" if serving.format_of(shape, f) == "fp8" and (shape.native_format or "bf16") == "bf16"
                 else None for f in formats]
    if weights_index is None:
        weights_index = formats.index(workload.weights) if workload.weights in formats else \
            formats.index(serving.format_of(shape, workload.weights))
    if kv_index is None:
        kv_index = workload.kv_cache if symbolic(workload.kv_cache) else KV_FORMATS.index(workload.kv_cache)
    share = engine_budget.ENGINE_MEMORY_SHARE
    return (("--tensor-parallel-size", gpu_count),
            ("--max-model-len", serving.effective_context(shape, workload.context_tokens)),
            ("--kv-cache-dtype", select(kv_index, kv_names)),
            ("--gpu-memory-utilization", str(share.numerator / share.denominator)),
            ("--max-num-seqs", workload.users),
            ("--quantization", select(weights_index, quantizes)))


def serves_published_checkpoint(shape: ModelShape, weights: str) -> bool:
    """Whether the publisher's checkpoint starts in ``weights``: in its own format, or in FP8 from a
    16-bit checkpoint (vLLM quantizes it as it loads, ``--quantization fp8``). Any other format needs
    a checkpoint quantized for it (AWQ or GPTQ for 4 bits).

    >>> llama = ModelShape(70_553_706_496, 80, 8, 128, 131_072)
    >>> [serves_published_checkpoint(llama, f) for f in ("bf16", "fp8", "int4")]
    [True, True, False]
    """
    fmt, published = serving.format_of(shape, weights), shape.native_format or "bf16"
    return fmt == published or (fmt == "fp8" and published == "bf16")


def command_arguments(arguments: Iterable[tuple[str, Any]]) -> str:
    """The settings as a command line writes them, those without a value left out."""
    return " ".join(f"{name} {value}" for name, value in arguments if value is not None)
