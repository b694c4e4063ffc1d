"""The garbage collector is paused or frozen only while asked, and given back as it was."""

from __future__ import annotations

import gc

import pytest

from gpuguide import collector


def test_paused_stops_collection_and_restores_it():
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_restores_it_after_an_error_and_leaves_a_disabled_collector_disabled():
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_frozen_keeps_objects_frozen_until_the_outermost_ends():
    assert gc.get_freeze_count() == 0
    with collector.frozen():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with collector.frozen():
            pass
        assert gc.get_freeze_count() >= frozen  # the inner one did not unfreeze
    assert gc.get_freeze_count() == 0
