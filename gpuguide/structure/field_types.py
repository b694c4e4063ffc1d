"""The field types the data files share: a plausible figure, a whole number, an id, a document's address."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from gpuguide.structure.schema import pattern_hint

#: Every figure of the data is finite and of a plausible size: `.inf`, `1e308` or a 5,000-digit
#: number is a typo, never a GPU or a model; so is a figure below a thousandth (of a GB, a GB/s,
#: a TFLOPS, a dollar), and `1e-300` would leave the arithmetic's range.
Positive = Annotated[float, Field(ge=0.001, lt=10**9, allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(gt=0, le=10**15)]
#: An id names files (``/gpu/<id>/``, ``/comparer/<a>-vs-<b>/``): 60 characters keep a pair's folder
#: name far within the 255 bytes a file system allows.
Identifier = Annotated[str, Field(max_length=60, pattern=pattern_hint(
    r"^[a-z0-9]+(-[a-z0-9]+)*$", "use lower-case letters, digits and dashes, e.g. `h100-sxm`"))]
SourceUrl = Annotated[str, Field(pattern=pattern_hint(
    r"^https://\S+$", "write the document's address, starting with https://"))]
