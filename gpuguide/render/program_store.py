"""The planner's programs kept across builds: ``.build-cache/programs/<digest>``.

A model page's planner embeds its model's program (``planner.program``): every GPU type's answer,
with the workload and the prices left as inputs, so the program changes only with the model's
shape, the GPUs' figures or the code. Building one takes 20 to 40 ms, and a price edit renders
every model page again: reading the 24 programs back instead of building them takes the real
site's price edit from 2.8 to 2.3 s. An entry is named by the digest of what its program is made
of (the code's version included), so a stale one is never read; it is a ``cached`` file
(checksummed JSON): a damaged one is built again, never used.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from gpuguide import cached
from gpuguide.figures import planner
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.planner_page import model_program
from gpuguide.figures.records import model_shape, serving_gpus
from gpuguide.figures.serving import ModelShape
from gpuguide.structure.dataset import Dataset

FOLDER = "programs"  # under the build cache


class ProgramStore:
    """``planner_page.ProgramSource`` reading and writing ``folder`` (None: in memory only, as in
    ``check``, which writes nothing). Workers forked from one build share the folder: an entry is
    written whole under a temporary name, then renamed."""

    def __init__(self, folder: Path | None, code_version: str = ""):
        self.folder, self.code_version = folder, code_version
        self._memo: dict[str, dict[str, Any]] = {}  # the pages of both languages ask for the same

    def key(self, shape: ModelShape, offers: tuple[ServingGpu, ...]) -> str:
        return hashlib.blake2b(repr((self.code_version, shape, offers)).encode(), digest_size=16).hexdigest()

    def __call__(self, shape: ModelShape, offers: tuple[ServingGpu, ...]) -> dict[str, Any]:
        key = self.key(shape, offers)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._read(key) or self._build(key, shape, offers)
        return found

    def prune(self, dataset: Dataset) -> None:
        """Remove the programs no model of ``dataset`` reads (an edited GPU's or model's figures,
        another version of the code): the folder holds one program per language model."""
        if self.folder is None or not self.folder.is_dir():
            return
        offers = planner.offers(serving_gpus(dataset.gpus, dataset.prices))
        kept = {self.key(model_shape(llm), offers) for llm in dataset.llm_models.values()}
        for name in os.listdir(self.folder):
            if name not in kept:
                (self.folder / name).unlink(missing_ok=True)

    def _read(self, key: str) -> dict[str, Any] | None:
        if self.folder is None:
            return None
        found: dict[str, Any] | None = cached.load(self.folder / key, key, _as_program)
        return found

    def _build(self, key: str, shape: ModelShape, offers: tuple[ServingGpu, ...]) -> dict[str, Any]:
        program = model_program(shape, offers)
        if self.folder is not None:
            try:
                cached.save(self.folder / key, key, program)
            except OSError:
                pass  # a cache that cannot be written costs time, never the build
        return program


def _as_program(value: Any) -> dict[str, Any]:
    if type(value) is not dict or type(value.get("instructions")) is not list or type(value.get("outputs")) is not dict:
        raise cached.Invalid("not a program")
    return value
