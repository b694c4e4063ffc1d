"""The price snapshot of ``data/prices.yaml`` (``PriceFile``), and a GPU's price as the dataset holds it (``Price``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator

from gpuguide.structure.field_types import Positive
from gpuguide.structure.schema import Strict


def _cents(value: float) -> float:
    if value < 0.01 or value > 10_000 or round(value, 2) != value:
        raise ValueError("a price is in dollars and cents, from 0.01 to 10,000 (e.g. 2.88)")
    return value


UsdPrice = Annotated[Positive, AfterValidator(_cents)]


class PriceFile(Strict):
    """Best live "from" price per GPU-hour, USD, excluding tax, at one snapshot date."""

    as_of: dt.date
    """the date of the price snapshot (YYYY-MM-DD), printed under the tables"""
    source: str
    """where the prices come from"""
    usd_per_gpu_hour: dict[str, UsdPrice]
    """GPU id → the best live offer per GPU-hour, US dollars and cents, excluding tax; a GPU left out has no offer"""


@dataclass(frozen=True)
class Price:
    usd_per_gpu_hour: float
    as_of: dt.date
