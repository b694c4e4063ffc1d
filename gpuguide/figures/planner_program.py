"""The planner's program: what ``templates/assets/planner.js`` evaluates in the reader's browser.
``planner.gpu_answer`` called with the planner's inputs (``expression.var``) and a ``ProgramGpu``,
whose figures are inputs too, builds it: one program per model, run by the script once for each GPU
type with that type's figures (``gpu_inputs``, written on the page). It reads nothing of the data
but the model's shape, so neither a price nor a GPU's figures edited change it.
"""

from __future__ import annotations

import functools
from typing import Any

from gpuguide.figures import roofline
from gpuguide.figures.engine_budget import ProgramGpu, ServingGpu
from gpuguide.figures.expression import Program, sharing, var
from gpuguide.figures.planner import Shown, formats_for, gpu_answer, vllm_arguments
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.figures.sizing import exact

#: The planner's inputs: the context, the users, the weight format (an index of ``formats_for``),
#: the KV-cache format (an index of ``KV_FORMATS``) and the per-user speed asked for (0: none).
INPUTS = ("context", "users", "weights", "kv", "target")


def gpu_inputs(gpu: ServingGpu, order: int) -> dict[str, Any]:
    """``gpu``'s figures as a program reads them (``ProgramGpu``), the ``order``-th GPU type of the
    data: whole numbers as such (those a script's number holds exactly), fractions as ``"72/25"``,
    None for a figure not published."""
    def number(value: Any) -> Any:
        if value is None:
            return None
        fraction = exact(value)
        if fraction.denominator == 1 and abs(fraction) < 2**53:
            return int(fraction)
        return f"{fraction.numerator}/{fraction.denominator}"

    rates = {path: roofline.tensor_tflops(gpu, path) for path in roofline.TENSOR_PATHS}
    price = gpu.usd_per_gpu_hour
    return {"link": gpu.fast_link_gpus, "price": number(price), "offer": int(price is not None),
            "bandwidth": number(gpu.bandwidth_gbs), "budget": number(gpu.engine_budget_bytes),
            "priced": int(price is not None and gpu.bandwidth_gbs is not None),
            "sort_bandwidth": number(gpu.bandwidth_gbs or 0), "order": order,
            **{f"tflops:{path}": number(rate) for path, rate in rates.items()},
            **{f"rated:{path}": int(rate is not None) for path, rate in rates.items()},
            **{f"has:{path}": int(path in gpu.rates) for path in roofline.TENSOR_PATHS}}


@functools.lru_cache(maxsize=256)
def program(shape: ModelShape) -> Program:
    """What the planner's script evaluates, once for each GPU type (``gpu_inputs``): ``gpu_answer``
    with the workload's inputs and a GPU type's left as inputs, and the launch settings of its
    configuration. It reads nothing of the data but the model: one program for every GPU type and
    every price."""
    context, users, weights, kv, target = (var(name) for name in INPUTS)
    formats = formats_for(shape)
    workloads = [Workload(context, users, fmt, kv) for fmt in formats]  # the KV format stays an input
    with sharing():
        row = gpu_answer(shape, workloads, weights, ProgramGpu(), ProgramGpu.order, target)
        settings = vllm_arguments(shape, workloads[0], row["count"], weights_index=weights, kv_index=kv)
        return Program({"code": row["code"], "count": row["count"], "native": row["native"], "price": row["price"],
                        **{field: row[field] for field in Shown.__dataclass_fields__}, "key": row["key"],
                        "settings": [[name, value] for name, value in settings]})
