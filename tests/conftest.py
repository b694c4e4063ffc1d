"""Fixtures: the tiny site and the real site, built once per session; a scaled site; a server; Chromium."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from scaled_site import write_scaled
from sites import CHROMIUM, build, copy_project, tiny_project

SCALED_GPUS = 40  # the scaled dataset: the real GPUs and synthetic ones up to this many


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A fresh copy of the tiny site, not built: the project root."""
    return tiny_project(tmp_path / "tiny")


@pytest.fixture(scope="session")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny site built once for the session; its ``site/`` folder (do not change it)."""
    root = tiny_project(tmp_path_factory.mktemp("tiny") / "tiny")
    build(root)
    return root / "site"


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real project built once for the session, search index included; its ``site/`` folder."""
    root = copy_project(tmp_path_factory.mktemp("project"))
    build(root, search=True, parallel=True)
    return root / "site"


@pytest.fixture(scope="session")
def built_scaled_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site with synthetic GPUs up to SCALED_GPUS (``scaled_site``: every
    interconnect topology, FP8 not supported, FP64 as a share of FP32, tied prices), built once."""
    root = tmp_path_factory.mktemp("scaled") / "project"
    write_scaled(root, SCALED_GPUS)
    build(root, parallel=True)
    return root / "site"


@pytest.fixture(scope="session")
def read_page(built_site: Path):
    """Parse a page of the real site with a real HTML parser (lxml through BeautifulSoup)."""

    @functools.cache
    def read(relative: str) -> BeautifulSoup:
        return BeautifulSoup((built_site / relative).read_text(encoding="utf-8"), "lxml")

    return read


@pytest.fixture(scope="session")
def site_url(built_site: Path):
    """The real site served on 127.0.0.1 by a real HTTP server, for the browser tests."""
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """pytest-playwright launches Debian's Chromium: Playwright cannot download browsers here."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"],
    }


# Fixtures that build the whole real (or scaled) site: a test using one is a slow test.
WHOLE_SITE_FIXTURES = {"built_site", "built_scaled_site", "read_page", "site_url"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that drives Chromium is a browser test (``-m "not browser"`` leaves them out), and
    every test that builds the whole real site is slow (``-m "not slow"`` leaves them out)."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if {"page", "browser"} & fixtures:
            item.add_marker(pytest.mark.browser)
        if WHOLE_SITE_FIXTURES & fixtures:
            item.add_marker(pytest.mark.slow)
