"""The dev server over real HTTP: live rebuilds, the last good site kept on errors, the error overlay."""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from sites import ROOT, copy_project

pytestmark = pytest.mark.slow

EN_PAGE = "content/en/llm-training.md"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.read().decode("utf-8")


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
            if value:
                return value
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.1)


@contextlib.contextmanager
def serving(root: Path, log_path: Path, first_page: str):
    """``build.py serve`` on ``root``, its output in ``log_path``, once ``first_page`` is served;
    yields the base address; always terminated."""
    port = free_port()
    with log_path.open("w") as log:
        process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "serve", "--root", str(root),
                                    "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_for(lambda: "<html" in fetch(f"{base}{first_page}"), 90, "the first build is served")
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def server(tmp_path: Path):
    """``build.py serve`` on a copy of the project."""
    root = copy_project(tmp_path / "project")
    with serving(root, tmp_path / "serve.log", "/en/llm-training/") as base:
        yield root, base


def test_dev_server_rebuilds_keeps_the_last_good_site_and_shows_errors(server):
    root, base = server
    page_url = f"{base}/en/llm-training/"
    first = fetch(page_url)
    assert '<script src="/__livereload.js"' in first
    assert "__gpuguideLivereload" in fetch(f"{base}/__livereload.js")
    assert fetch(f"{base}/__livereload?since=0").startswith("window.__gpuguideLivereload(")
    assert "<html" in fetch(f"{base}/fr/entrainement-llm/")  # every language at once
    assert not list((root / "site").rglob("__livereload*"))
    assert "__livereload" not in (root / "site/en/llm-training/index.html").read_text(encoding="utf-8")

    # An edit shows up without restarting (an edit of the text re-renders that page alone).
    page = root / EN_PAGE
    page.write_text(page.read_text(encoding="utf-8").replace(
        "Training a model from scratch", "Training huge language models from scratch"), encoding="utf-8")
    wait_for(lambda: "Training huge language models from scratch" in fetch(page_url), 5, "the edit is served")

    # A broken data file: the last good page is still served, with the error in an overlay.
    gpus = root / "data/gpus.yaml"
    good = gpus.read_text(encoding="utf-8")
    broken = good.replace("memory_gb: 80\n", 'memory_gb: "80 Go"\n', 1)
    line = broken[: broken.index('memory_gb: "80 Go"')].count("\n") + 1
    gpus.write_text(broken, encoding="utf-8")
    served = wait_for(lambda: (html := fetch(page_url)) and "gpuguide-build-error" in html and html, 10,
                      "the error overlay")
    assert "Training huge language models from scratch" in served
    assert f"data/gpus.yaml:{line}:" in served and "`memory_gb`: input should be a valid number" in served
    assert "&#x27;80 Go&#x27;" in served  # escaped

    # Fixed: the overlay goes away.
    gpus.write_text(good, encoding="utf-8")
    wait_for(lambda: "gpuguide-build-error" not in fetch(page_url), 10, "the recovery")


def test_the_open_page_reloads_itself_in_chromium(server, page):
    """Live reload under the site's Content-Security-Policy, in a real browser."""
    root, base = server
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{base}/en/llm-training/")  # the poll starts after "load", so loading finishes
    page.evaluate("window.__beforeReload = true")
    source = root / EN_PAGE
    source.write_text(source.read_text(encoding="utf-8").replace(
        "Training a model from scratch", "Training a model from nothing"), encoding="utf-8")
    page.wait_for_function("() => document.body.innerText.includes('from nothing')", timeout=15_000)
    assert page.evaluate("window.__beforeReload === undefined")  # a real reload, not a patch
    assert errors == []


def test_a_busy_port_is_a_usage_error_before_any_build(tmp_path: Path):
    from sites import tiny_project

    root = tiny_project(tmp_path / "tiny")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, str(ROOT / "build.py"), "serve", "--root", str(root), "--port", str(port)],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "cannot listen on 127.0.0.1" in result.stderr and "Traceback" not in result.stderr
    assert not (root / "site").exists()  # nothing was built


@pytest.fixture
def tiny_server(tmp_path: Path):
    """``build.py serve`` on the tiny site; its log for checking that nothing printed a traceback."""
    from sites import tiny_project

    root = tiny_project(tmp_path / "tiny")
    log_path = tmp_path / "serve.log"
    with serving(root, log_path, "/en/training/") as base:
        yield root, base, log_path


def test_what_a_client_does_never_prints_a_traceback(tiny_server):
    root, base, log = tiny_server
    with pytest.raises(urllib.error.HTTPError) as bad:
        urllib.request.urlopen(f"{base}/fr/%00", timeout=10)
    assert bad.value.code == 400
    for _ in range(5):  # a browser that goes away mid-request
        with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1]))) as client:
            client.sendall(b"GET /fr/ HTTP/1.1\r\nHost: x\r\n\r\n")
    assert "<html" in fetch(f"{base}/fr/")
    time.sleep(0.5)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_the_served_site_stays_deployable_and_restored_folders_are_watched(tiny_server):
    root, base, log = tiny_server
    assert (root / "site" / "pagefind" / "pagefind.js").is_file()  # the first build indexes the search
    # templates/ deleted and restored (a checkout): template edits are still seen.
    shutil.move(root / "templates", root.parent / "templates-aside")
    time.sleep(1)
    shutil.move(root.parent / "templates-aside", root / "templates")
    time.sleep(1)
    guide = root / "templates" / "guide.html"
    guide.write_text(guide.read_text(encoding="utf-8").replace("{{ main_html }}", "{{ main_html }}<p>Restored.</p>"),
                     encoding="utf-8")
    wait_for(lambda: "Restored." in fetch(f"{base}/en/guides/first-guide/"), 15, "the template edit is served")
    assert (root / "site" / "pagefind" / "pagefind.js").is_file()  # a rebuild keeps the index
    assert "Traceback" not in log.read_text(encoding="utf-8")
