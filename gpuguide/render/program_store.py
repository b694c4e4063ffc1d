"""The planner's programs kept across builds: ``.build-cache/programs/<digest>``.

A model page's planner embeds its model's program (``planner.program``): every GPU type's answer,
with the workload and the prices left as inputs, so the program changes only with the model's
shape, the GPUs' figures or the code. Building one takes 20 to 40 ms, and a price edit renders
every model page again: reading the 24 programs back instead of building them takes the real
site's price edit from 2.8 to 2.3 s. A GPU page's planner embeds its GPU's program
(``planner_page.gpu_program``: every model on that GPU, its price included), 50 to 75 ms to build;
a use case's title, which every GPU page shows, renders the language's GPU pages again, and reading
their programs back saves the real site's title edit about 1 s of CPU (``build.py`` after the edit:
4.0–4.9 s of CPU against 5.3–5.8 s, 3 edits each). An
entry is named by the digest of what its program is made of (the code's version included), so a
stale one is never read; it is a ``cached`` file (checksummed JSON): a damaged one is built again,
never used. It holds the program as the pages write it (``EncodedJson``: its JSON text), which
they put in as it is: each program is encoded once, not on every page (both languages, and a use
case's planner) that embeds it, nor decoded when read back (real site, single process: 0.4 s of
CPU of a cold build, 0.2 s of a price edit).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuguide import cached
from gpuguide.figures import planner
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.planner_page import GpuModels, gpu_program_inputs, gpu_program_json, model_program
from gpuguide.figures.records import model_shape, serving_gpus
from gpuguide.figures.serving import ModelShape
from gpuguide.render.environment import EncodedJson
from gpuguide.structure.dataset import Dataset

FOLDER = "programs"  # under the build cache


class ProgramStore:
    """``planner_page.ProgramSource`` reading and writing ``folder`` (None: in memory only, as in
    ``check``, which writes nothing). Workers forked from one build share the folder: an entry is
    written whole under a temporary name, then renamed."""

    def __init__(self, folder: Path | None, code_version: str = ""):
        self.folder, self.code_version = folder, code_version
        self._memo: dict[str, EncodedJson] = {}  # the pages of both languages ask for the same

    def key(self, shape: ModelShape, offers: tuple[ServingGpu, ...]) -> str:
        return self._digest(shape, offers)

    def gpu_key(self, spec: ServingGpu, models: GpuModels) -> str:
        return self._digest("gpu", spec, models)

    def __call__(self, shape: ModelShape, offers: tuple[ServingGpu, ...]) -> EncodedJson:
        """A model's program (a ``planner_page.ProgramSource``)."""
        return self._get(self.key(shape, offers), lambda: model_program(shape, offers))

    def gpu(self, spec: ServingGpu, models: GpuModels) -> EncodedJson:
        """A GPU's program (a ``planner_page.GpuProgramSource``)."""
        return self._get(self.gpu_key(spec, models), lambda: gpu_program_json(spec, models))

    def prune(self, dataset: Dataset) -> None:
        """Remove the programs no page of ``dataset`` reads (an edited GPU's or model's figures,
        another version of the code): the folder holds one program per language model and one
        per GPU."""
        if self.folder is None or not self.folder.is_dir():
            return
        offers = planner.offers(serving_gpus(dataset.gpus, dataset.prices))
        kept = {self.key(model_shape(llm), offers) for llm in dataset.llm_models.values()}
        kept |= {self.gpu_key(*gpu_program_inputs(gpu, dataset)) for gpu in dataset.gpus.values()}
        for name in os.listdir(self.folder):
            if name not in kept:
                (self.folder / name).unlink(missing_ok=True)

    def _digest(self, *made_of: Any) -> str:
        return hashlib.blake2b(repr((self.code_version, *made_of)).encode(), digest_size=16).hexdigest()

    def _get(self, key: str, build: Callable[[], dict[str, Any]]) -> EncodedJson:
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._read(key) or self._build(key, build)
        return found

    def _read(self, key: str) -> EncodedJson | None:
        if self.folder is None:
            return None
        text: str | None = cached.load(self.folder / key, key, _as_program)
        return EncodedJson(text) if text is not None else None

    def _build(self, key: str, build: Callable[[], dict[str, Any]]) -> EncodedJson:
        program = EncodedJson.of(build())
        if self.folder is not None:
            try:
                cached.save(self.folder / key, key, program.text)
            except OSError:
                pass  # a cache that cannot be written costs time, never the build
        return program


def _as_program(value: Any) -> str:
    # The checksum vouches for the text; this, that it is what ``_build`` wrote: a program's JSON.
    if type(value) is not str or not value.startswith('{"instructions": [') or not value.endswith("}"):
        raise cached.Invalid("not a program")
    return value
