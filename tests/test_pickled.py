"""Cache files: a value saved for a key loads back for that key only; anything unreadable is "no
cache" (None), never an exception; a save that fails leaves the previous file and no temporary one."""

from __future__ import annotations

import errno
import gc
import os
import pickle
from pathlib import Path

import pytest

from gpuguide import pickled

VALUE = {"pages": [("fr/index.html", 3, frozenset({"a", "b"}))], "sizes": {"x": 1.5}, "none": None}


def test_a_saved_value_loads_back_equal(tmp_path: Path):
    path = tmp_path / "cache" / "deep" / "entries.pickle"  # folders made as needed
    pickled.save(path, "v1", VALUE)
    assert pickled.load(path, "v1") == VALUE
    assert os.listdir(path.parent) == ["entries.pickle"]  # no temporary file left behind


def test_a_second_save_replaces_the_first(tmp_path: Path):
    path = tmp_path / "c.pickle"
    pickled.save(path, "v1", "old")
    pickled.save(path, "v2", "new")
    assert pickled.load(path, "v2") == "new"
    assert pickled.load(path, "v1") is None  # the old key is gone with the old value


def test_a_value_saved_for_another_key_is_no_cache(tmp_path: Path):
    path = tmp_path / "c.pickle"
    pickled.save(path, "code-version-1", VALUE)
    assert pickled.load(path, "code-version-2") is None


def test_a_saved_none_and_a_missing_file_both_load_as_none(tmp_path: Path):
    assert pickled.load(tmp_path / "absent.pickle", "k") is None
    pickled.save(tmp_path / "none.pickle", "k", None)
    assert pickled.load(tmp_path / "none.pickle", "k") is None


@pytest.mark.parametrize("cut", [0, 1, 10, -1])
def test_a_truncated_file_is_no_cache(tmp_path: Path, cut: int):
    path = tmp_path / "c.pickle"
    pickled.save(path, "k", VALUE)
    data = path.read_bytes()
    path.write_bytes(data[:cut])  # a copy cut short, an empty file
    assert pickled.load(path, "k") is None


@pytest.mark.parametrize("data", [
    b"not a pickle at all",
    b"\x80\x05\x95garbage",
    pickle.dumps(42),  # a pickle, but not a (key, value) pair: TypeError on unpacking
    pickle.dumps(("k", 1, 2)),  # three items: ValueError
    b"cno_such_module_for_gpuguide_tests\nThing\n.",  # a class whose module is gone: ImportError
    b"cos\nno_such_attribute_in_os\n.",  # a class renamed since: AttributeError
], ids=["text", "garbage", "not-a-pair", "three-items", "missing-module", "missing-attribute"])
def test_a_corrupt_or_foreign_file_is_no_cache(tmp_path: Path, data: bytes):
    path = tmp_path / "c.pickle"
    path.write_bytes(data)
    assert pickled.load(path, "k") is None


def test_a_folder_where_the_file_should_be_is_no_cache(tmp_path: Path):
    (tmp_path / "c.pickle").mkdir()  # reading it raises IsADirectoryError, an OSError
    assert pickled.load(tmp_path / "c.pickle", "k") is None


def test_loading_a_corrupt_file_leaves_the_garbage_collector_on(tmp_path: Path):
    # Loading pauses the collector; a failed load must not leave it paused for the rest of the build.
    path = tmp_path / "c.pickle"
    path.write_bytes(b"\x80\x05garbage")
    assert gc.isenabled()
    assert pickled.load(path, "k") is None
    assert gc.isenabled()


def test_a_save_that_fails_while_writing_keeps_the_old_file_and_no_temporary(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "c.pickle"
    pickled.save(path, "k", "old")
    before = path.read_bytes()
    real_write = Path.write_bytes

    def disk_full(self: Path, data: bytes) -> int:
        real_write(self, data[: len(data) // 2])  # half the file reached the disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", disk_full)
    with pytest.raises(OSError):
        pickled.save(path, "k", "new" * 1000)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["c.pickle"]  # the half-written temporary file is gone
    assert path.read_bytes() == before and pickled.load(path, "k") == "old"


def test_a_save_that_fails_at_the_rename_keeps_the_old_file_and_no_temporary(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "c.pickle"
    pickled.save(path, "k", "old")

    def refuse(source: object, target: object) -> None:
        assert Path(str(source)).is_file()  # the temporary file was written whole, then the rename failed
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        pickled.save(path, "k", "new")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["c.pickle"]
    assert pickled.load(path, "k") == "old"


def test_a_value_that_cannot_be_pickled_keeps_the_old_file(tmp_path: Path):
    path = tmp_path / "c.pickle"
    pickled.save(path, "k", "old")
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickled.save(path, "k", lambda: None)  # a lambda cannot be pickled
    assert os.listdir(tmp_path) == ["c.pickle"]
    assert pickled.load(path, "k") == "old"


# --- Journal: entries saved incrementally -------------------------------------------------------------

def _journal(tmp_path: Path, key: str = "k") -> pickled.Journal:
    return pickled.Journal.load(tmp_path / "j.pickle", key)


def test_a_journal_saved_then_loaded_gives_back_its_entries_and_extras(tmp_path: Path):
    journal = _journal(tmp_path)
    assert journal.entries == {} and journal.extras == {}  # nothing saved yet
    entries = {f"page-{n}": ("entry", n) for n in range(100)}
    journal.save(entries, {"sitemap": "<urlset/>"})
    loaded = _journal(tmp_path)
    assert loaded.entries == entries and loaded.extras == {"sitemap": "<urlset/>"}


def test_a_later_save_appends_only_the_entries_that_changed(tmp_path: Path):
    path = tmp_path / "j.pickle"
    entries = {f"page-{n}": ("entry", f"{n:0200d}", n) for n in range(1000)}  # 200 bytes each, all different
    _journal(tmp_path).save(entries, {"sitemap": "s" * 5000})
    before = path.read_bytes()
    loaded = _journal(tmp_path)
    kept = dict(loaded.entries)  # the very objects loaded: unchanged
    kept["page-3"] = ("entry", "edited", 3)
    kept["page-new"] = ("entry", "added", -1)
    del kept["page-7"]
    loaded.save(kept, {"sitemap": "s" * 5000})
    after = path.read_bytes()  # what was saved, then two entries and one name (not the unchanged sitemap)
    assert after.startswith(before) and len(after) - len(before) < 300
    again = _journal(tmp_path)
    assert again.entries == kept and "page-7" not in again.entries
    assert again.extras == {"sitemap": "s" * 5000}


def test_an_entry_equal_but_not_the_one_loaded_is_written_again(tmp_path: Path):
    # Changes are found by identity (cheap for ten thousand entries): an equal copy is written, harmlessly.
    path = tmp_path / "j.pickle"
    _journal(tmp_path).save({"a": ("entry", 1)}, {})
    loaded = _journal(tmp_path)
    size = path.stat().st_size
    loaded.save({"a": ("entry", 1)}, {})
    assert path.stat().st_size > size and _journal(tmp_path).entries == {"a": ("entry", 1)}


def test_extras_that_change_are_appended(tmp_path: Path):
    journal = _journal(tmp_path)
    journal.save({"a": 1}, {"records": {"x": "d1"}, "sitemap": "old"})
    journal = _journal(tmp_path)
    journal.save(dict(journal.entries), {"records": {"x": "d2"}, "sitemap": "old"})
    assert _journal(tmp_path).extras == {"records": {"x": "d2"}, "sitemap": "old"}


def test_appended_records_that_outgrow_half_the_first_are_written_whole_again(tmp_path: Path):
    path = tmp_path / "j.pickle"
    entries = {f"page-{n}": n for n in range(50)}
    journal = _journal(tmp_path)
    journal.save(entries, {})
    first = path.stat().st_size
    for round_number in range(40):  # each save changes five entries; the same journal goes on appending
        entries = {**entries, **{f"page-{n}": round_number * 100 + n for n in range(5)}}
        journal.save(entries, {})
        assert path.stat().st_size <= first + first // 2 + 200  # never more than half again, plus one record
    assert _journal(tmp_path).entries == entries


@pytest.mark.parametrize("cut", [1, 4, 8, 20])
def test_a_journal_whose_last_record_is_cut_short_is_no_cache(tmp_path: Path, cut: int):
    # A build killed while appending: the whole file is untrusted (the pages are rendered again).
    path = tmp_path / "j.pickle"
    _journal(tmp_path).save({"a": 1, "b": 2}, {})
    loaded = _journal(tmp_path)
    loaded.save({"a": 1, "b": 3}, {})
    path.write_bytes(path.read_bytes()[:-cut])
    assert _journal(tmp_path).entries == {}


def test_a_journal_saved_for_another_key_is_empty_and_then_written_whole(tmp_path: Path):
    _journal(tmp_path, "global-key-1").save({"a": 1}, {})
    other = _journal(tmp_path, "global-key-2")
    assert other.entries == {}
    other.save({"b": 2}, {})
    assert _journal(tmp_path, "global-key-2").entries == {"b": 2}
    assert _journal(tmp_path, "global-key-1").entries == {}


@pytest.mark.parametrize("data", [b"", b"garbage!", b"\x05\x00\x00\x00\x00\x00\x00\x00\x80\x05garb"])
def test_a_corrupt_journal_is_empty(tmp_path: Path, data: bytes):
    (tmp_path / "j.pickle").write_bytes(data)
    assert _journal(tmp_path).entries == {}
    assert gc.isenabled()
