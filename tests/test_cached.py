"""``gpuguide.cached``: ``cached_property`` (computed once per instance, then read from the instance);
cache files, whose value saved for a key loads back for that key only and anything else (missing,
damaged anywhere, cut anywhere, of another format, a planted pickle) is "no cache", never an
exception and never code run; and ``settled``, when a file's state can tell a later edit."""

from __future__ import annotations

import errno
import gc
import json
import math
import os
import pickle
import struct
import zlib
from pathlib import Path

import pytest

from gpuguide import atomic, cached
from gpuguide.cached import Snapshot, cached_property, settled


class Counter:
    def __init__(self, start: int):
        self.start = start
        self.calls = 0

    @cached_property
    def doubled(self) -> int:
        """Twice the start."""
        self.calls += 1
        return self.start * 2


def test_computed_on_first_access_then_kept() -> None:
    counter = Counter(21)
    assert counter.calls == 0  # nothing computed before it is asked for
    assert counter.doubled == 42 and counter.doubled == 42
    assert counter.calls == 1
    assert counter.__dict__["doubled"] == 42  # stored in the instance, as functools' does


def test_each_instance_has_its_own_value() -> None:
    one, two = Counter(1), Counter(2)
    assert (one.doubled, two.doubled) == (2, 4)


def test_a_value_set_in_the_instance_is_used_without_computing() -> None:
    # The content cache fills a page's digests this way, without reading its file.
    counter = Counter(1)
    counter.__dict__["doubled"] = 99
    assert counter.doubled == 99 and counter.calls == 0


def test_deleting_the_value_computes_it_again() -> None:
    counter = Counter(5)
    assert counter.doubled == 10
    counter.start = 6
    del counter.__dict__["doubled"]
    assert counter.doubled == 12 and counter.calls == 2


def test_the_class_attribute_is_the_descriptor_with_its_docstring() -> None:
    assert isinstance(Counter.doubled, cached_property)
    assert Counter.doubled.__doc__ == "Twice the start."


# --- Cache files: load and save --------------------------------------------------------------------------

VALUE = {"pages": [["fr/index.html", 3, ["a", "b"]]], "sizes": {"x": 1.5}, "none": None, "flag": True,
         "text": "Entraînement d’un LLM ≈ 10 Md", "big": 2**70}


class Plant:
    """Unpickling it creates ``marker``: what a planted pickle could do instead is anything."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (Path.touch, (self.marker,))


def planted_pickles(marker: Path) -> list[bytes]:
    """A pickle that runs code, alone and framed as the pickle journals were (its length, then it)."""
    payload = pickle.dumps(("k", Plant(marker)))
    pickle.loads(payload)  # it is live: unpickling it runs the code
    assert marker.exists()
    marker.unlink()
    return [payload, struct.pack("<Q", len(payload)) + payload]


def test_a_saved_value_loads_back_equal(tmp_path: Path):
    path = tmp_path / "cache" / "deep" / "entries.cache"  # folders made as needed
    cached.save(path, "v1", VALUE)
    assert cached.load(path, "v1") == VALUE
    assert os.listdir(path.parent) == ["entries.cache"]  # no temporary file left behind


def test_the_file_is_a_header_then_one_record_its_length_checksum_and_json(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "k", {"a": [1, 2]})
    data = path.read_bytes()
    header = cached.MAGIC + struct.pack("<I", cached.FORMAT)
    assert data.startswith(header)
    length, checksum = struct.unpack_from("<QI", data, len(header))
    payload = data[len(header) + 12:]
    assert length == len(payload) and checksum == zlib.crc32(payload)  # the standard library's, another implementation
    assert json.loads(payload) == ["k", {"a": [1, 2]}]  # data only: nothing in it can run


def test_tuples_load_back_as_lists_and_the_decoder_restores_them(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "k", {"state": (1, 2, 3, 4)})
    assert cached.load(path, "k") == {"state": [1, 2, 3, 4]}
    assert cached.load(path, "k", lambda value: tuple(value["state"])) == (1, 2, 3, 4)


def test_a_file_name_that_is_not_utf8_is_kept(tmp_path: Path):
    # The walk reads such names with surrogates (os.fsdecode): they go into caches as they are.
    name = os.fsdecode(b"content/fr/caf\xe9.md")
    cached.save(tmp_path / "c.cache", "k", {name: 1})
    assert cached.load(tmp_path / "c.cache", "k") == {name: 1}


EDGE_VALUES = [
    [2**70, -(2**80), 2**64 - 1, -0.0, 5e-324, 1e300, 0.1],  # whole numbers beyond 64 bits, extreme floats
    [float("inf"), float("-inf")],
    {"text": "é\u2028\x00\"\\/\x7f", "nested": [{"a": None, "b": True}], "": []},
    os.fsdecode(b"caf\xe9.md"),  # a lone surrogate: the standard library's path
]


@pytest.mark.parametrize("value", EDGE_VALUES, ids=["numbers", "infinities", "escapes", "surrogate"])
def test_the_payload_is_the_standard_librarys_compact_json_and_loads_back_the_same(tmp_path: Path, value):
    # The fast codec must write exactly what ``json.dumps`` writes, and read it back to the same
    # values and types (a big whole number stays an int, an infinity stays a float).
    path = tmp_path / "c.cache"
    cached.save(path, "k", value)
    payload = path.read_bytes()[len(cached.MAGIC) + 4 + 12:]
    assert payload == json.dumps(["k", value], ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    loaded = cached.load(path, "k")
    assert loaded == value and json.dumps(loaded) == json.dumps(value)  # same types: 2**70 is no float


def test_a_nan_loads_back_as_a_nan(tmp_path: Path):
    cached.save(tmp_path / "c.cache", "k", [float("nan")])
    assert math.isnan(cached.load(tmp_path / "c.cache", "k")[0])


def test_a_second_save_replaces_the_first(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "v1", "old")
    cached.save(path, "v2", "new")
    assert cached.load(path, "v2") == "new"
    assert cached.load(path, "v1") is None  # the old key is gone with the old value


def test_a_value_saved_for_another_key_is_no_cache(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "code-version-1", VALUE)
    assert cached.load(path, "code-version-2") is None


def test_a_saved_none_and_a_missing_file_both_load_as_none(tmp_path: Path):
    assert cached.load(tmp_path / "absent.cache", "k") is None
    cached.save(tmp_path / "none.cache", "k", None)
    assert cached.load(tmp_path / "none.cache", "k") is None


def test_a_file_cut_anywhere_is_no_cache(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "k", VALUE)
    data = path.read_bytes()
    for cut in range(len(data)):  # every length short of the whole, the empty file included
        path.write_bytes(data[:cut])
        assert cached.load(path, "k") is None, cut


def test_a_byte_flipped_anywhere_is_no_cache(tmp_path: Path):
    # Header, length, checksum or payload: the checksum is verified before anything is decoded, so
    # a damaged value (a title, a digest) never reaches a page.
    path = tmp_path / "c.cache"
    cached.save(path, "k", VALUE)
    data = path.read_bytes()
    for position in range(len(data)):
        for mask in (0x01, 0x80, 0xFF):
            damaged = bytearray(data)
            damaged[position] ^= mask
            path.write_bytes(bytes(damaged))
            assert cached.load(path, "k") is None, (position, mask)


def test_bytes_after_the_record_are_no_cache(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "k", VALUE)
    data = path.read_bytes()
    path.write_bytes(data + data[len(cached.MAGIC) + 4:])  # a second, valid record: not what save writes
    assert cached.load(path, "k") is None


@pytest.mark.parametrize("length", [2**31, 2**63, 2**64 - 1])
def test_a_huge_length_in_the_header_is_no_cache(tmp_path: Path, length: int):
    # It once raised OverflowError and failed every build until the cache was deleted by hand.
    path = tmp_path / "c.cache"
    payload = b'["k",1]'
    path.write_bytes(cached.MAGIC + struct.pack("<I", cached.FORMAT)
                     + struct.pack("<QI", length, zlib.crc32(payload)) + payload)
    assert cached.load(path, "k") is None
    assert cached.Journal.load(path, "k").entries == {}


def frame(payload: bytes, version: int = cached.FORMAT) -> bytes:
    """A record with a right length and checksum: what a forger (or another version) can write."""
    return (cached.MAGIC + struct.pack("<I", version)
            + struct.pack("<QI", len(payload), zlib.crc32(payload)) + payload)


@pytest.mark.parametrize("version", [0, cached.FORMAT + 1, 2**32 - 1])
def test_another_format_version_is_no_cache(tmp_path: Path, version: int):
    path = tmp_path / "c.cache"
    path.write_bytes(frame(b'["k",1]', version))
    assert cached.load(path, "k") is None
    path.write_bytes(frame(b'["k",1]'))
    assert cached.load(path, "k") == 1


@pytest.mark.parametrize("payload", [
    b"not json",
    b'["k"',  # cut inside the JSON
    b'["k",1,2]',  # three items: not a (key, value) pair
    b'{"k":1}',
    b"\xff\xfe[]",  # not UTF-8
    b"[" * 100_000 + b"]" * 100_000,  # nested deeper than any decoder goes
], ids=["text", "cut", "three-items", "object", "not-utf8", "deep"])
def test_a_checksummed_record_that_is_not_what_save_writes_is_no_cache(tmp_path: Path, payload: bytes):
    path = tmp_path / "c.cache"
    path.write_bytes(frame(payload))
    assert cached.load(path, "k") is None
    assert cached.Journal.load(path, "k").entries == {}


def test_a_value_of_another_shape_than_its_decoder_expects_is_no_cache(tmp_path: Path):
    path = tmp_path / "c.cache"

    def decode(value: object) -> tuple[int, ...]:
        if type(value) is not list or not all(type(n) is int for n in value):
            raise cached.Invalid("a list of numbers")
        return tuple(value)

    for value in ["text", {"a": 1}, [1, "2"], None]:
        cached.save(path, "k", value)
        assert cached.load(path, "k", decode) is None
    for broken in (lambda value: value["missing"], lambda value: value[99], lambda value: int("x")):
        cached.save(path, "k", [1])
        assert cached.load(path, "k", broken) is None  # KeyError/TypeError, IndexError, ValueError


def test_a_planted_pickle_never_runs_and_is_no_cache(tmp_path: Path):
    marker = tmp_path / "ran"
    for planted in planted_pickles(marker):
        (tmp_path / "c.cache").write_bytes(planted)
        assert cached.load(tmp_path / "c.cache", "k") is None
        assert cached.Journal.load(tmp_path / "c.cache", "k").entries == {}
        assert not marker.exists()


@pytest.mark.parametrize("data", [
    b"not a cache at all",
    b"\x80\x05\x95garbage",
    pickle.dumps(("k", 42)),  # a pickle, even a harmless one, is not this format
    b"",
], ids=["text", "garbage", "pickle", "empty"])
def test_a_corrupt_or_foreign_file_is_no_cache(tmp_path: Path, data: bytes):
    path = tmp_path / "c.cache"
    path.write_bytes(data)
    assert cached.load(path, "k") is None


def test_a_folder_where_the_file_should_be_is_no_cache(tmp_path: Path):
    (tmp_path / "c.cache").mkdir()
    assert cached.load(tmp_path / "c.cache", "k") is None


def test_a_named_pipe_or_a_link_where_the_file_should_be_is_no_cache_and_never_blocks(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.pickle")  # opening it for reading would wait for a writer for ever
    assert cached.load(tmp_path / "pipe.pickle", "k") is None
    cached.save(tmp_path / "real.pickle", "k", 1)
    (tmp_path / "link.pickle").symlink_to(tmp_path / "real.pickle")  # a link: not a file the build wrote
    assert cached.load(tmp_path / "link.pickle", "k") is None
    (tmp_path / "null.pickle").symlink_to("/dev/zero")  # a device never ends
    assert cached.load(tmp_path / "null.pickle", "k") is None


def test_a_file_larger_than_any_cache_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "c.cache"
    cached.save(path, "k", "x" * 1000)
    monkeypatch.setattr(cached, "MAX_CACHE_BYTES", 500)
    assert cached.load(path, "k") is None


def test_loading_a_corrupt_file_leaves_the_garbage_collector_on(tmp_path: Path):
    # Loading pauses the collector; a failed load must not leave it paused for the rest of the build.
    path = tmp_path / "c.cache"
    path.write_bytes(frame(b"[" * 100_000))
    assert gc.isenabled()
    assert cached.load(path, "k") is None
    assert gc.isenabled()


def test_a_save_that_fails_while_writing_keeps_the_old_file_and_no_temporary(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "c.cache"
    cached.save(path, "k", "old")
    before = path.read_bytes()
    real_write = os.write

    def disk_full(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))  # half the file reached the disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "write", disk_full)
    with pytest.raises(OSError):
        cached.save(path, "k", "new" * 1000)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["c.cache"]  # the half-written temporary file is gone
    assert path.read_bytes() == before and cached.load(path, "k") == "old"


def test_a_save_that_fails_at_the_rename_keeps_the_old_file_and_no_temporary(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "c.cache"
    cached.save(path, "k", "old")

    def refuse(source: object, target: object) -> None:
        assert Path(str(source)).is_file()  # the temporary file was written whole, then the rename failed
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError):
        cached.save(path, "k", "new")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["c.cache"]
    assert cached.load(path, "k") == "old"


def test_the_temporary_file_of_a_save_killed_before_its_rename_goes_at_the_next_save(tmp_path: Path):
    (tmp_path / ".c.cache.tmp-4242").write_bytes(b"half a file")
    cached.save(tmp_path / "c.cache", "k", 1)
    assert os.listdir(tmp_path) == ["c.cache"]


def test_a_value_that_is_not_data_keeps_the_old_file(tmp_path: Path):
    path = tmp_path / "c.cache"
    cached.save(path, "k", "old")
    with pytest.raises(TypeError):
        cached.save(path, "k", lambda: None)  # not JSON data: a mistake in the code, not in the cache
    assert os.listdir(tmp_path) == ["c.cache"]
    assert cached.load(path, "k") == "old"


# --- Journal: entries saved incrementally -------------------------------------------------------------

def _journal(tmp_path: Path, key: str = "k") -> cached.Journal:
    return cached.Journal.load(tmp_path / "j.pickle", key)


def test_a_journal_saved_then_loaded_gives_back_its_entries_and_extras(tmp_path: Path):
    journal = _journal(tmp_path)
    assert journal.entries == {} and journal.extras == {}  # nothing saved yet
    entries = {f"page-{n}": ["entry", n] for n in range(100)}
    journal.save(entries, {"sitemap": "<urlset/>"})
    loaded = _journal(tmp_path)
    assert loaded.entries == entries and loaded.extras == {"sitemap": "<urlset/>"}


def test_a_journal_encodes_and_decodes_each_record_as_its_owner_says(tmp_path: Path):
    # A record may share what its entries have in common: here a table of names, each entry a number.
    def encode(entries: dict[str, tuple[str, ...]]) -> list[object]:
        names = sorted({name for entry in entries.values() for name in entry})
        return [names, {key: [names.index(name) for name in entry] for key, entry in entries.items()}]

    def decode(saved: object) -> dict[str, tuple[str, ...]]:
        names, rows = saved  # type: ignore[misc]
        return {key: tuple(names[index] for index in row) for key, row in rows.items()}

    path = tmp_path / "j.pickle"
    journal = cached.Journal.load(path, "k", decode)
    journal.save({"a": ("x", "y"), "b": ("y",)}, {}, encode)
    loaded = cached.Journal.load(path, "k", decode)
    loaded.save({**loaded.entries, "c": ("z",)}, {}, encode)  # appended: its own table
    assert cached.Journal.load(path, "k", decode).entries == {"a": ("x", "y"), "b": ("y",), "c": ("z",)}


def test_a_later_save_appends_only_the_entries_that_changed(tmp_path: Path):
    path = tmp_path / "j.pickle"
    entries = {f"page-{n}": ["entry", f"{n:0200d}", n] for n in range(1000)}  # 200 bytes each, all different
    _journal(tmp_path).save(entries, {"sitemap": "s" * 5000})
    before = path.read_bytes()
    loaded = _journal(tmp_path)
    kept = dict(loaded.entries)  # the very objects loaded: unchanged
    kept["page-3"] = ["entry", "edited", 3]
    kept["page-new"] = ["entry", "added", -1]
    del kept["page-7"]
    loaded.save(kept, {"sitemap": "s" * 5000})
    after = path.read_bytes()  # what was saved, then two entries and one name (not the unchanged sitemap)
    assert after.startswith(before) and len(after) - len(before) < 300
    again = _journal(tmp_path)
    assert again.entries == kept and "page-7" not in again.entries
    assert again.extras == {"sitemap": "s" * 5000}


def test_a_save_with_nothing_changed_writes_nothing(tmp_path: Path):
    path = tmp_path / "j.pickle"
    _journal(tmp_path).save({"a": [1]}, {"x": "y"})
    before = path.read_bytes()
    loaded = _journal(tmp_path)
    loaded.save(dict(loaded.entries), {"x": "y"})
    assert path.read_bytes() == before


def test_an_entry_equal_but_not_the_one_loaded_is_written_again(tmp_path: Path):
    # Changes are found by identity (cheap for ten thousand entries): an equal copy is written, harmlessly.
    path = tmp_path / "j.pickle"
    entries = {f"page-{n}": ["entry", n] for n in range(100)}
    _journal(tmp_path).save(entries, {})
    loaded = _journal(tmp_path)
    size = path.stat().st_size
    loaded.save({**loaded.entries, "page-1": ["entry", 1]}, {})
    assert path.stat().st_size > size and _journal(tmp_path).entries == entries


def test_extras_that_change_are_appended(tmp_path: Path):
    journal = _journal(tmp_path)
    journal.save({"a": 1}, {"records": {"x": "d1"}, "sitemap": "old"})
    journal = _journal(tmp_path)
    journal.save(dict(journal.entries), {"records": {"x": "d2"}, "sitemap": "old"})
    assert _journal(tmp_path).extras == {"records": {"x": "d2"}, "sitemap": "old"}


def first_record(data: bytes) -> int:
    """The bytes of a journal's header and first record."""
    header = len(cached.MAGIC) + 4
    return header + 12 + struct.unpack_from("<Q", data, header)[0]


def test_appended_records_that_would_outgrow_half_the_first_are_written_whole(tmp_path: Path):
    path = tmp_path / "j.pickle"
    entries = {f"page-{n}": n for n in range(50)}
    journal = _journal(tmp_path)
    journal.save(entries, {})
    sizes = []
    for round_number in range(40):  # each save changes five entries; the same journal goes on appending
        entries = {**entries, **{f"page-{n}": round_number * 100 + n for n in range(5)}}
        journal.save(entries, {})
        data = path.read_bytes()
        assert len(data) <= first_record(data) * 3 // 2  # never more than half again
        sizes.append(len(data))
        assert _journal(tmp_path).entries == entries
    assert sizes != sorted(sizes)  # it did append, and was written whole again


def test_a_journal_whose_file_changed_since_it_was_loaded_writes_it_whole(tmp_path: Path):
    path = tmp_path / "j.pickle"
    _journal(tmp_path).save({"a": 1, "b": 2}, {})
    loaded = _journal(tmp_path)
    cached.save(path, "other", "another file in its place")
    loaded.save({"a": 1, "b": 3}, {})  # appending to that file would make it unreadable
    assert _journal(tmp_path).entries == {"a": 1, "b": 3}


def two_records(tmp_path: Path) -> bytes:
    """A journal of a first record and one appended (a build after a one-page edit)."""
    _journal(tmp_path).save({"a": ["Titre A", 1], "b": ["Titre B", 2]}, {"sitemap": "<urlset/>"})
    loaded = _journal(tmp_path)
    loaded.save({**loaded.entries, "b": ["Titre B modifié", 3]}, {"sitemap": "<urlset/>"})
    data = (tmp_path / "j.pickle").read_bytes()
    assert _journal(tmp_path).entries["b"] == ["Titre B modifié", 3]
    return data


def test_a_journal_cut_anywhere_is_no_cache(tmp_path: Path):
    # Cut inside a record (a build killed while appending) or anywhere before: the whole file is
    # untrusted, never the records before the cut (the pages are rendered again). Only a cut exactly
    # where the appended record starts is a whole journal: the one the build before saved, whose
    # every entry still names the state it was made from (the page's size and time in site/, the
    # file's state), so that nothing newer matches it.
    data = two_records(tmp_path)
    first_record = len(cached.MAGIC) + 4 + 12 + struct.unpack_from("<Q", data, len(cached.MAGIC) + 4)[0]
    for cut in range(len(data)):
        (tmp_path / "j.pickle").write_bytes(data[:cut])
        journal = _journal(tmp_path)
        if cut == first_record:
            assert journal.entries == {"a": ["Titre A", 1], "b": ["Titre B", 2]}
        else:
            assert journal.entries == {} and journal.extras == {}, cut


def test_a_journal_with_a_byte_flipped_anywhere_is_no_cache(tmp_path: Path):
    data = two_records(tmp_path)
    for position in range(len(data)):
        damaged = bytearray(data)
        damaged[position] ^= 0x20
        (tmp_path / "j.pickle").write_bytes(bytes(damaged))
        journal = _journal(tmp_path)
        assert journal.entries == {} and journal.extras == {}, position


def test_a_damaged_journal_is_then_written_whole(tmp_path: Path):
    data = two_records(tmp_path)
    (tmp_path / "j.pickle").write_bytes(data[:-1])
    journal = _journal(tmp_path)
    journal.save({"c": 1}, {})
    assert _journal(tmp_path).entries == {"c": 1}


def test_a_journal_saved_for_another_key_is_empty_and_then_written_whole(tmp_path: Path):
    _journal(tmp_path, "global-key-1").save({"a": 1}, {})
    other = _journal(tmp_path, "global-key-2")
    assert other.entries == {}
    other.save({"b": 2}, {})
    assert _journal(tmp_path, "global-key-2").entries == {"b": 2}
    assert _journal(tmp_path, "global-key-1").entries == {}


@pytest.mark.parametrize("payload", [b'["k",{},[1],{}]', b'["k",{},[],[]]', b'["k",[],[],{}]', b'["k",{}]'],
                         ids=["removed-not-names", "extras-not-object", "entries-not-object", "two-items"])
def test_a_journal_record_of_another_shape_is_empty(tmp_path: Path, payload: bytes):
    (tmp_path / "j.pickle").write_bytes(frame(payload))
    assert _journal(tmp_path).entries == {} and _journal(tmp_path).extras == {}


@pytest.mark.parametrize("data", [b"", b"garbage!", b"\x05\x00\x00\x00\x00\x00\x00\x00\x80\x05garb"])
def test_a_corrupt_journal_is_empty(tmp_path: Path, data: bytes):
    (tmp_path / "j.pickle").write_bytes(data)
    assert _journal(tmp_path).entries == {}
    assert gc.isenabled()


# --- settled: when a file's state tells a later edit ----------------------------------------------------

SECOND = 1_000_000_000


def test_a_state_whose_times_are_well_before_the_snapshot_is_settled():
    taken = 1_800_000_000 * SECOND
    assert settled((10, taken - 3 * SECOND, taken - 3 * SECOND, 1), taken)
    # In the snapshot's second, or within a file system's resolution of it (two seconds on FAT):
    # an edit just after the snapshot could leave the same size and times.
    assert not settled((10, taken - taken % SECOND, taken - 3 * SECOND, 1), taken)
    assert not settled((10, taken - 3 * SECOND, taken - SECOND, 1), taken)  # its status changed just before
    assert not settled((10, taken + SECOND, taken + SECOND, 1), taken)  # written after the snapshot


def test_a_snapshot_is_its_states_with_when_they_were_taken():
    snapshot = Snapshot({"a.md": (1, 2, 3, 4)}, taken_ns=5, racy={"a.md": "digest"})
    assert snapshot == {"a.md": (1, 2, 3, 4)}  # compared as its states
    assert (snapshot.taken_ns, snapshot.racy) == (5, {"a.md": "digest"})
    assert Snapshot().racy == {} and Snapshot().taken_ns == 0
