"""The planner's programs kept across builds: ``.build-cache/programs/<digest>``.

A model page's planner embeds its model's program (``planner_program.program``): one GPU type's answer,
with the workload and the GPU type's figures and price left as inputs, which the script runs once
for each GPU type (``planner_program.gpu_inputs``, on the page). The GPU pages embed one program for the
site (``planner_page.gpu_program``: every model, the GPU's figures as inputs). So a program changes
only with the models' shapes or the code, never with a price or a GPU's figures. Building them
takes the real site 0.12 s for its 28 models and 0.04 s for the GPU pages' (every GPU type's
answer in one program per model took 1.3 s, and one program per GPU type 1.0 s); a price edit
renders every model and GPU page again, which reads them back instead. An entry is named by the
digest of what its program is made of (the code's version included), so a stale one is never
read; it is a ``cached`` file (checksummed JSON): a damaged one is built again, never used. It
holds the program as the pages write it (``EncodedJson``: its JSON text), which they put in as it
is: each program is encoded once, not on every page (both languages, and a use case's planner)
that embeds it, nor decoded when read back.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpuguide import cached
from gpuguide.figures.planner_page import GpuModels, gpu_program_json, gpu_program_models, model_program
from gpuguide.figures.records import model_shape
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

    def key(self, shape: ModelShape) -> str:
        return self._digest(shape)

    def gpu_key(self, models: GpuModels) -> str:
        return self._digest("gpu", models)

    def __call__(self, shape: ModelShape) -> EncodedJson:
        """A model's program (a ``planner_page.ProgramSource``)."""
        return self._get(self.key(shape), lambda: model_program(shape))

    def gpu(self, models: GpuModels) -> EncodedJson:
        """The GPU pages' program (a ``planner_page.GpuProgramSource``)."""
        return self._get(self.gpu_key(models), lambda: gpu_program_json(models))

    def prune(self, dataset: Dataset) -> None:
        """Remove the programs no page of ``dataset`` reads (a model's shape edited, another
        version of the code): the folder holds one program per language model and one for the
        GPU pages."""
        if self.folder is None or not self.folder.is_dir():
            return
        kept = {self.key(model_shape(llm)) for llm in dataset.llm_models.values()}
        kept.add(self.gpu_key(gpu_program_models(dataset)))
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
