"""What one page's rendering read of the data and of the UI strings: the page depends on exactly that.

A page renders against a *view* of the dataset and of its language whose mappings note every
record they hand out into the page's own ``Reads`` (no global state, no field of the shared
dataset replaced): a price change then re-renders only the pages that showed that price.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language

ALL = "*"  # the page read every record of a table
KEYS = "#ids"  # the page read the list of ids (their order), not the records

#: The dataset's tables a page can read, by the name its reads record.
TRACKED_TABLES = ("gpus", "prices", "llm_models", "diffusion_models")

Read = tuple[str, str]  # (table, key)

#: A page's front matter as another page shows it (its title, its summary): (PAGE_TEXTS, output path).
PAGE_TEXTS = "page"
Value = TypeVar("Value")


class Reads:
    """The (table, key) pairs one render read."""

    def __init__(self) -> None:
        self.keys: set[Read] = set()

    def note(self, table: str, key: str) -> None:
        self.keys.add((table, key))


class NotedList(list[Value]):
    """A list that, when read (iterated, indexed, measured, tested), first calls ``note`` once."""

    def __init__(self, items: list[Value], note: Callable[[], Any]):
        super().__init__(items)
        self._note: Callable[[], Any] | None = note

    def _read(self) -> None:
        if self._note is not None:
            note, self._note = self._note, None
            note()

    def __iter__(self) -> Iterator[Value]:
        self._read()
        return super().__iter__()

    def __len__(self) -> int:
        self._read()
        return super().__len__()

    def __getitem__(self, index: Any) -> Any:
        self._read()
        return super().__getitem__(index)

    def __contains__(self, item: object) -> bool:
        self._read()
        return super().__contains__(item)


class TrackedMapping(Mapping[str, Value]):
    """A read-only view of a table (id → record) that notes what is read into a ``Reads``."""

    def __init__(self, name: str, data: Mapping[str, Value], reads: Reads):
        self.name, self.data, self.reads = name, data, reads

    def __getitem__(self, key: str) -> Value:
        self.reads.note(self.name, key)
        return self.data[key]

    def __contains__(self, key: object) -> bool:
        self.reads.note(self.name, str(key))
        return key in self.data

    def __iter__(self) -> Iterator[str]:
        self.reads.note(self.name, KEYS)
        return iter(self.data)

    def __len__(self) -> int:
        self.reads.note(self.name, KEYS)
        return len(self.data)

    def items(self) -> Any:
        self.reads.note(self.name, ALL)
        return self.data.items()

    def values(self) -> Any:
        self.reads.note(self.name, ALL)
        return self.data.values()


def tracked_dataset(dataset: Dataset, reads: Reads) -> Dataset:
    """A view of ``dataset`` whose tables note into ``reads`` what is read of them."""
    return dataclasses.replace(dataset, gpus=TrackedMapping("gpus", dataset.gpus, reads),
                               prices=TrackedMapping("prices", dataset.prices, reads),
                               llm_models=TrackedMapping("llm_models", dataset.llm_models, reads),
                               diffusion_models=TrackedMapping("diffusion_models", dataset.diffusion_models, reads))


def tracked_language(language: Language, reads: Reads) -> Language:
    """A view of ``language`` whose UI strings note into ``reads`` which ones a page used."""
    return dataclasses.replace(language, strings=TrackedMapping(f"ui-{language.code}", language.strings, reads))
