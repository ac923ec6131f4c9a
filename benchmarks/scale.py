"""The speed table: every interactive and batch path at 0.3, 5 and 50 MB and on the tiers of many
small documents (500 MB in 45,000 documents; ``huge``: 5 GB in 450,000, or ``--docs N`` of it),
next to baselines and the issues' targets.

Each size is a realistic set from ``corpora.py`` (non-ASCII text with emoji, one large document,
a CRLF file, ~1 % ambiguous and ~1 % missing quotes; ``many``: 45,000 documents of 2–20 KB in
folders, most of them unlabelled). Every row is printed beside a baseline run in the same process
on the same machine, as a ratio, and beside its target (``TARGETS``) when it has one:

- ``naive`` is a straightforward resolver written here: decode and normalise each document, then
  one ``str.find`` scan per quote for every occurrence (what a first implementation does);
- ``floor`` is the least any check must do: read, decode, NFC, sha256, one Aho–Corasick pass per
  document over its quotes, and ``json.loads`` of every line (its wall and CPU time, and each
  step's time, of them the documents a quote names: what a check that decoded only those would
  still pay);
- chunking is reported in ms per MB of each document class, next to the floor's ms per MB of the
  same document.

Rows: ``check`` (CLI subprocess, medians of ``--runs``; cold with ``--no-cache`` in one process
and with the default ``--jobs auto``, the first check that fills the warm cache, then warm),
keystroke didChange → the server's answer for that version (p50/p95 over real JSON-RPC; the
publication, or the status notification when the diagnostics did not change and nothing was
published), both after the server settled (its idle work done) and sent back to back from the
moment the set opened, opening the set in the server (didOpen → first publish; without the warm
cache, and with it), the first "Lengthen" code action, a corpus edit → republish (the most quoted
document), and peak memory of CLI (alone, and with its ``--jobs`` workers) and server as a
multiple of the corpus's bytes on disk (the server's also before the corpus document is opened
in the editor, and above the peak of a server that opened an empty set: what grows with the
corpus). A second server times keystrokes sent back to back from the open on the records quoting
the largest document only (its quotes broken and restored: the not-found hints of a 10 MB
document). ``--against DIR`` runs the server rows also with the ``golden_lsp`` of another
checkout (the code before a change, e.g. a ``git worktree``), each with a warm cache of its own,
the two taking turns (``--server-rounds``), and prints them side by side. Times are medians;
nothing here asserts a time. The corpus is read once before anything is timed, so every row
reads it from the page cache. ``--lean`` measures only the rows the huge tier's targets name
(what fits the time of 5 GB).

    python benchmarks/scale.py [--sizes 0.3,5,50,many,huge] [--rows all|cli|server] [--edits 200]
                               [--runs 3] [--docs 45000] [--questions N] [--data DIR] [--lean]
                               [--against DIR [--server-rounds 2]]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import ahocorasick
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import MANY, SIZES, generate, generate_many
from keystroke_latency import edits, utf16

from golden_lsp.core.text.chunker import chunk_document

CLI = [sys.executable, "-m", "golden_lsp"]
ROOT = Path(__file__).resolve().parents[1]


# --- baselines ------------------------------------------------------------------------------


def _glob(root: Path) -> str:
    return "**/*.md" if 'glob = "**/*.md"' in (root / "golden-lsp.toml").read_text() else "*.md"


def _paths(root: Path) -> list[Path]:
    return sorted((root / "corpus").glob(_glob(root)))


def _document(root: Path, doc: str) -> str:
    text = (root / "corpus" / doc).read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    return unicodedata.normalize("NFC", text)


def _locators(root: Path) -> list[tuple[str, str]]:
    out = []
    for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            out.extend((loc["doc"], loc["quote"]) for loc in json.loads(line)["locators"])
    return out


def naive_resolve(root: Path, only_doc: str | None = None) -> tuple[int, int]:
    """One scan per quote over its document (each document decoded once, one at a time);
    (not found, ambiguous)."""
    by_doc: dict[str, list[str]] = {}
    for doc, quote in _locators(root):
        if only_doc is None or doc == only_doc:
            by_doc.setdefault(doc, []).append(quote)
    missing = ambiguous = 0
    for doc, quotes in by_doc.items():
        text = _document(root, doc)
        for quote in quotes:
            n, pos = 0, text.find(quote)
            while pos != -1:
                n += 1
                pos = text.find(quote, pos + 1)
            missing += n == 0
            ambiguous += n > 1
    return missing, ambiguous


#: the floor's steps, in the order they run on each document
FLOOR_PARTS = ("glob", "read", "decode", "NFC", "sha256", "Aho–Corasick")


def floor(root: Path, parts: dict[str, float] | None = None) -> None:
    """read, decode, NFC, sha256, one Aho–Corasick pass per document, json.loads of every line.
    ``parts``, when given, gets each step's seconds added (``FLOOR_PARTS``; "json" for the
    questions file), and "quoted …" for the documents a quote names."""
    clock = time.perf_counter
    spent = dict.fromkeys(("json", *FLOOR_PARTS, *(f"quoted {p}" for p in FLOOR_PARTS[1:])), 0.0)
    t0 = clock()
    quotes: dict[str, set[str]] = {}
    for line in (root / "questions.jsonl").read_text(encoding="utf-8").split("\n"):
        if line.strip() and not line.lstrip().startswith("//"):
            for loc in json.loads(line)["locators"]:
                quotes.setdefault(loc["doc"], set()).add(loc["quote"])
    corpus = root / "corpus"
    t1 = clock()
    paths = _paths(root)
    spent["json"], spent["glob"] = t1 - t0, clock() - t1
    for path in paths:
        named = quotes.get(path.relative_to(corpus).as_posix(), ())
        t0 = clock()
        raw = path.read_bytes()
        t1 = clock()
        text = raw.decode("utf-8").replace("\r\n", "\n")
        t2 = clock()
        text = unicodedata.normalize("NFC", text)
        t3 = clock()
        hashlib.sha256(text.encode("utf-8")).hexdigest()
        t4 = clock()
        automaton = ahocorasick.Automaton()
        for q in named:
            automaton.add_word(q, q)
        if len(automaton):
            automaton.make_automaton()
            for _ in automaton.iter(text):
                pass
        t5 = clock()
        for step, took in zip(FLOOR_PARTS[1:], (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            spent[step] += took
            if named:
                spent[f"quoted {step}"] += took
    if parts is not None:
        for step, took in spent.items():
            parts[step] = parts.get(step, 0.0) + took


def naive_lengthen(text: str, quote: str, at: int) -> str | None:
    """Grow the quote word by word to the right, one full count of the document per probe."""
    end = at + len(quote)
    while end < len(text) and text[end] != "\n":
        end = text.find(" ", end + 1)
        end = len(text) if end == -1 else end
        if text.count(text[at:end]) == 1:
            return text[at:end]
    return None


def _first(text: str, quote: str, n: int) -> list[int]:
    out, pos = [], text.find(quote)
    while pos != -1 and len(out) < n:
        out.append(pos)
        pos = text.find(quote, pos + 1)
    return out


def timed(fn, *args, runs: int = 1) -> float:
    """Median milliseconds of ``runs`` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


# --- golden-lsp -------------------------------------------------------------------------------


def _hwm(pid: int) -> int:
    """The peak RSS (``VmHWM``) of a process, in bytes (0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) * 1024
    except (OSError, StopIteration, ValueError):
        return 0


def _pss(pid: int) -> int:
    """The proportional set size of a process, in bytes: its pages, a shared one counted in
    shares (what forked workers have of their parent counted once in all); 0 when it is gone."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        return int(next(line.split()[1] for line in rollup.splitlines() if line.startswith("Pss:"))) * 1024
    except (OSError, StopIteration, ValueError):
        return 0


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        try:
            children = Path(f"/proc/{todo.pop()}/task").glob("*/children")
            found = [int(c) for f in children for c in f.read_text().split()]
        except (OSError, ValueError):
            found = []
        out.extend(found)
        todo.extend(found)
    return out


def cli_check(root: Path, *flags: str, env: dict | None = None) -> tuple[float, int, float, int]:
    """(ms, peak RSS in bytes, CPU ms, the peak of all its processes' memory) of one ``golden-lsp
    check`` subprocess. A peak RSS is the process's own ``VmHWM``, polled while it runs
    (``ru_maxrss`` would report this benchmark's own size: Linux keeps it across the fork and
    exec of a child); all processes' memory (the check's and its ``--jobs`` workers') is the sum
    of their proportional set sizes (a page a worker shares with the check counted once),
    polled every 0.1 s, at its highest (and never below the check's own peak). ``env``: another
    checkout's environment (``--against``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*CLI, "check", *flags, str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=root,
        env=env,
    )
    peak = together = 0
    polled = 0.0
    while True:
        pid, _, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _hwm(proc.pid))
        if time.perf_counter() - polled > 0.1:
            polled = time.perf_counter()
            together = max(together, sum(_pss(p) for p in (proc.pid, *_descendants(proc.pid))))
        time.sleep(0.005)
    proc.returncode = 0  # reaped above
    ms = (time.perf_counter() - start) * 1000
    return ms, peak, (usage.ru_utime + usage.ru_stime) * 1000, max(peak, together)


def checks(root: Path, *flags: str, runs: int = 3) -> tuple[float, ...]:
    """The median of each of ``cli_check``'s figures over ``runs`` runs."""
    got = [cli_check(root, *flags) for _ in range(runs)]
    return tuple(statistics.median(g[i] for g in got) for i in range(len(got[0])))


class _Session:
    """One real server over JSON-RPC, with every publication logged as (uri, version, arrival,
    for the latest one its diagnostics, and when the client handed it over).

    "Arrival" is when the client starts decoding the message (its first JSON object): what the
    server's latency ends at. pygls' client then structures every diagnostic with cattrs, which
    for hundreds of diagnostics costs more than the server's whole analysis (an editor's
    ``JSON.parse`` costs a millisecond or two); the hand-over time includes that too.
    """

    def __init__(self) -> None:
        self.client = LanguageClient("golden-lsp-scale", "1")
        self.log: list[tuple] = []
        self.arrived = asyncio.Event()
        began: list[float] = []
        structure = self.client.protocol.structure_message

        def timed_structure(data: dict):
            if not began:
                began.append(time.perf_counter())
            message = structure(data)
            if "jsonrpc" in data:  # the whole message: the next object begins another
                self.arrival = began.pop()
            return message

        self.client.protocol.structure_message = timed_structure

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            # only the latest publication's diagnostics are kept: a client holding every one
            # would spend the measured time in its own garbage collections
            if self.log:
                self.log[-1] = (*self.log[-1][:3], None, self.log[-1][4])
            self.log.append(
                (params.uri, params.version, self.arrival, params.diagnostics, time.perf_counter())
            )
            self.arrived.set()

        #: (uri, version, arrival) of every status notification: the server analysed a file
        self.statuses: list[tuple] = []

        @self.client.feature("golden-lsp/status")
        def on_status(params) -> None:
            params = params._asdict() if hasattr(params, "_asdict") else dict(params)
            self.statuses.append((params.get("uri"), params.get("version"), time.perf_counter()))
            self.arrived.set()

    async def next_publish(self, uri: str, since: int, version: int | None = None, timeout: float = 900):
        deadline = time.perf_counter() + timeout
        while True:
            for entry in self.log[since:]:
                if entry[0] == uri and (version is None or entry[1] == version):
                    return entry
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.01, deadline - time.perf_counter()))

    async def answered(self, uri: str, since: tuple[int, int], version: int | None, timeout: float = 900):
        """When the server answered an edit of ``uri``: its publication for ``version`` (any,
        for None), or its status notification when it published nothing (unchanged)."""
        deadline = time.perf_counter() + timeout
        while True:
            for entry in self.log[since[0] :]:
                if entry[0] == uri and (version is None or entry[1] == version):
                    return entry[2]
            for u, v, at in self.statuses[since[1] :]:
                if u == uri and (version is None or v == version):
                    return at
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.01, deadline - time.perf_counter()))

    def mark(self) -> tuple[int, int]:
        return len(self.log), len(self.statuses)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.client._server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def settled(self, quiet: float = 1.0, limit: float = 120.0) -> None:
        """Wait until the server used no CPU for ``quiet`` seconds (its idle work is done)."""
        start, last = time.perf_counter(), self.cpu_seconds()
        while time.perf_counter() - start < limit:
            await asyncio.sleep(quiet)
            now = self.cpu_seconds()
            if now - last < 0.02:
                return
            last = now

    def peak_rss(self) -> int:
        return _hwm(self.client._server.pid)


async def _opened(root: Path, env: dict | None = None) -> tuple[_Session, str, str, float, list]:
    """A server started on ``root`` with the questions file opened: (session, uri, text, ms from
    didOpen to the first publish, its diagnostics)."""
    s = _Session()
    client = s.client
    await client.start_io(*CLI, "--stdio", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=from_fs_path(str(root)),
            # an edit that changes no finding publishes nothing: its status says it was analysed
            initialization_options={"statusNotification": True},
        )
    )
    client.initialized(types.InitializedParams())
    questions = root / "questions.jsonl"
    uri = from_fs_path(str(questions))
    text = questions.read_text(encoding="utf-8")
    start = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "jsonl", 1, text))
    )
    _, _, at, diagnostics, _ = await s.next_publish(uri, 0, 1)
    return s, uri, text, (at - start) * 1000, diagnostics


async def _stop(s: _Session) -> None:
    await s.client.shutdown_async(None)
    s.client.exit(None)
    await s.client.stop()


async def open_without_cache(root: Path, env: dict | None = None) -> tuple[float, int]:
    """(ms, peak RSS) of opening the set in a server that neither reads nor writes the warm cache."""
    s, _, _, ms, _ = await _opened(root, {**(env or os.environ), "GOLDEN_LSP_NO_CACHE": "1"})
    rss = s.peak_rss()
    await _stop(s)
    return ms, rss


async def _keystrokes(
    s: _Session, uri: str, text: str, n_edits: int, first_version: int, doc: str | None = None
):
    """Milliseconds from each edit's didChange to the server's answer for its version, and the
    text the edits leave (``doc``: edits of the records quoting that document only)."""
    latencies = []
    lines = text.split("\n")
    for version, (line, old, new) in enumerate(edits(text, n_edits, doc=doc), start=first_version):
        lines[line] = new
        whole_line = types.Range(types.Position(line, 0), types.Position(line, utf16(old)))
        since, sent = s.mark(), time.perf_counter()
        s.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangePartial(whole_line, new)],
            )
        )
        latencies.append((await s.answered(uri, since, version) - sent) * 1000)
    return latencies, "\n".join(lines)


def _p50_p95(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    return statistics.median(values), values[int(0.95 * (len(values) - 1))]


def _most_quoted(root: Path) -> str:
    return statistics.mode(doc for doc, _ in _locators(root))


async def empty_set_rss(env: dict | None = None) -> int:
    """The peak RSS of a server that opened a set of one small document and no question: the
    interpreter, the libraries and the server itself, what does not grow with a corpus."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        (root / "corpus").mkdir()
        (root / "corpus" / "a.md").write_text("# A document\n\nOne paragraph of text.\n", encoding="utf-8")
        (root / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
        (root / "questions.jsonl").write_text("", encoding="utf-8")
        s, *_ = await _opened(root, env)
        await s.settled()
        rss = s.peak_rss()
        await _stop(s)
    return rss


async def largest_document_keystrokes(root: Path, n_edits: int, env: dict | None = None) -> dict[str, float]:
    """Keystrokes sent back to back from the moment the set opened, each on a record quoting the
    largest document (its quotes broken and restored, its queries typed into): the not-found
    hints of a 10 MB document before and while the server prepares them."""
    s, uri, text, _, _ = await _opened(root, env)
    largest = max(_paths(root), key=lambda p: p.stat().st_size).relative_to(root / "corpus").as_posix()
    lat, _ = await _keystrokes(s, uri, text, n_edits, 2, doc=largest)
    out = dict(zip(("p50_large", "p95_large"), _p50_p95(lat)))
    out["max_large"] = max(lat)
    out["server_large_rss"] = s.peak_rss()
    await _stop(s)
    return out


async def server_rows(root: Path, n_edits: int, env: dict | None = None) -> dict[str, float]:
    s, uri, text, ms, diagnostics = await _opened(root, env)
    client = s.client
    out = {"open": ms}
    # back to back from the moment the set opened (the idle work after the open competes)
    early, text = await _keystrokes(s, uri, text, min(n_edits, 50), 2)
    out["p50_open"], out["p95_open"] = _p50_p95(early)
    out["max_open"] = max(early)
    await s.settled()
    steady, _ = await _keystrokes(s, uri, text, n_edits, 1000)
    out["p50"], out["p95"] = _p50_p95(steady)
    out["max"] = max(steady)
    diagnostics = next((e[3] for e in reversed(s.log) if e[0] == uri and e[3] is not None), [])
    amb = next((d for d in diagnostics if d.code == "quote-ambiguous" and d.related_information), None)
    if amb is not None:
        sent = time.perf_counter()
        await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb])
            )
        )
        out["lengthen"] = (time.perf_counter() - sent) * 1000
    out["server_questions_rss"] = s.peak_rss()  # before a corpus document is opened in the editor
    chapter = root / "corpus" / _most_quoted(root)
    chapter_uri = from_fs_path(str(chapter))
    raw = chapter.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(chapter_uri, "markdown", 1, raw))
    )
    await asyncio.sleep(1.0)  # let the (no-op) republish of the unchanged buffer pass
    lines = raw.split("\n")
    middle = next(i for i in range(len(lines) // 2, len(lines)) if len(lines[i]) > 40)
    times = []
    for k in range(5):
        since, sent = s.mark(), time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=k + 2, uri=chapter_uri),
                [
                    types.TextDocumentContentChangePartial(
                        types.Range(types.Position(middle, 0), types.Position(middle, 0)), f"Edit{k} "
                    )
                ],
            )
        )
        times.append((await s.answered(uri, since, None) - sent) * 1000)
    out["corpus_edit"] = statistics.median(times)
    out["server_rss"] = s.peak_rss()
    await _stop(s)
    return out


def chunking_rows(root: Path) -> list[tuple[str, float, float, float]]:
    """(document, MB, chunker ms/MB, floor ms/MB) for one document of each size class."""
    named = [root / "corpus" / n for n in ("chapter-00.md", "quoted.md", "large.md")]
    paths = [p for p in named if p.exists()]
    if not paths:  # the many-documents tier: a median and the largest document
        by_size = sorted(_paths(root), key=lambda p: p.stat().st_size)
        paths = [by_size[len(by_size) // 2], by_size[-1]]
    rows = []
    for path in paths:
        raw = path.read_bytes()
        text = unicodedata.normalize("NFC", raw.decode("utf-8"))
        mb = len(raw) / 1e6
        chunk_ms = timed(chunk_document, path.name, text, 1800, runs=3)
        floor_ms = timed(
            lambda: hashlib.sha256(
                unicodedata.normalize("NFC", raw.decode("utf-8")).encode("utf-8")  # noqa: B023 (called here)
            ).hexdigest(),
            runs=3,
        )
        rows.append((path.name, mb, chunk_ms / mb, floor_ms / mb))
    return rows


# --- the table ------------------------------------------------------------------------------


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def server_part(root: Path, n_edits: int, env: dict | None, lean: bool = False) -> dict[str, float]:
    """The server rows of one code (``env``: another checkout's, else this one's); ``lean``: only
    the rows the huge tier's targets name."""
    gc.collect()
    r: dict[str, float] = {}
    if not lean:
        r["open_cold"], r["server_cold_rss"] = asyncio.run(open_without_cache(root, env))
    r.update(asyncio.run(server_rows(root, n_edits, env)))
    if not lean:
        r.update(asyncio.run(largest_document_keystrokes(root, min(n_edits, 50), env)))
    r["server_empty_rss"] = asyncio.run(empty_set_rss(env))
    return r


def _medians(rounds: list[dict]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}


def measure(
    root: Path,
    n_edits: int,
    rows: str,
    runs: int,
    against: Path | None = None,
    server_rounds: int = 2,
    lean: bool = False,
) -> dict:
    """Every row of ``root``'s set; ``lean``: only the rows the huge tier's targets name (no
    one-process cold check, no server open without the cache, one cache-filling check)."""
    corpus_bytes = sum(p.stat().st_size for p in _paths(root))
    n_records = sum(1 for line in (root / "questions.jsonl").open(encoding="utf-8") if line.startswith("{"))
    r: dict = {"bytes": corpus_bytes, "records": n_records, "docs": len(_paths(root)), "load": [_load()]}
    for path in _paths(root):  # read once first: the floor and every check read the page cache
        path.read_bytes()
    cpu = time.process_time()
    r["naive"] = timed(naive_resolve, root)
    r["naive_cpu"] = (time.process_time() - cpu) * 1000
    parts: dict[str, float] = {}
    cpu = time.process_time()
    r["floor"] = timed(floor, root, parts, runs=runs)
    r["floor_cpu"] = (time.process_time() - cpu) * 1000 / runs
    r["floor_parts"] = {step: took * 1000 / runs for step, took in parts.items()}
    r["naive_doc"] = timed(naive_resolve, root, _most_quoted(root))
    # a cache of this run's own (the subprocesses'), beside the set: the huge tier's is gigabytes
    cache = Path(tempfile.mkdtemp(prefix="golden-lsp-bench-cache-", dir=root.parent))
    os.environ["GOLDEN_LSP_CACHE_DIR"] = str(cache)
    if rows in ("all", "cli"):
        if not lean:  # one process (what the floor is measured as)
            r["check_cold"], r["cli_rss"], r["check_cold_cpu"], _ = checks(
                root, "--no-cache", "--jobs", "1", runs=runs
            )
        # the default (--jobs auto: one process per core)
        r["check_cold_jobs"], r["cli_cold_jobs_rss"], r["check_cold_jobs_cpu"], r["cli_cold_jobs_all_rss"] = (
            checks(root, "--no-cache", runs=runs)
        )
        fills = []
        for _ in range(1 if lean else runs):  # the first check that fills the warm cache, from an empty one
            shutil.rmtree(cache, ignore_errors=True)
            fills.append(cli_check(root))
        r["check_fill"], r["cli_fill_rss"], _, r["cli_fill_all_rss"] = (
            statistics.median(f[i] for f in fills) for i in range(4)
        )
        r["cache_bytes"] = sum(f.stat().st_size for f in cache.rglob("*") if f.is_file())
        time.sleep(2.5)  # past diskcache.RACY_NS: the next check trusts the files' stats
        cli_check(root)
        r["check_warm"], r["cli_warm_rss"], r["check_warm_cpu"], _ = checks(root, runs=runs)
        r["load"].append(_load())
    if rows in ("all", "server"):
        if rows == "server":
            cli_check(root)  # the warm cache the server opens with
        if against is None:
            r.update(server_part(root, n_edits, None, lean))
        else:
            # the code before, with a warm cache of its own filled by its own check; the two
            # taking turns (before, after, after, before), each row the median of its rounds
            before_cache = Path(tempfile.mkdtemp(prefix="golden-lsp-bench-before-cache-"))
            env = {**os.environ, "PYTHONPATH": str(against), "GOLDEN_LSP_CACHE_DIR": str(before_cache)}
            cli_check(root, env=env)
            time.sleep(2.5)
            mine = {**os.environ, "PYTHONPATH": str(ROOT)}
            rounds: dict[str, list[dict]] = {"before": [], "after": []}
            for k in range(server_rounds):
                for name in ("before", "after") if k % 2 == 0 else ("after", "before"):
                    rounds[name].append(server_part(root, n_edits, env if name == "before" else mine, lean))
            shutil.rmtree(before_cache, ignore_errors=True)
            r.update(_medians(rounds["after"]))
            r["before"] = _medians(rounds["before"])
            r["rounds"] = rounds
        r["load"].append(_load())
    r["chunking"] = chunking_rows(root)
    shutil.rmtree(cache, ignore_errors=True)
    return r


def _ms(v: float) -> str:
    return f"{v / 1000:.2f} s" if v >= 1000 else f"{v:.1f} ms"


#: each tier's targets: row key → (what the target is, a test of the measured figures)
TARGETS = {
    "many": {
        "check_cold_jobs": ("< 10 s", lambda r: r["check_cold_jobs"] < 10_000),
        "check_fill": ("< 1.2× the uncached", lambda r: r["check_fill"] < 1.2 * r["check_cold_jobs"]),
        "check_warm": ("< 3 s", lambda r: r["check_warm"] < 3000),
        "cli_rss": ("< 2× the corpus", lambda r: r["cli_cold_jobs_rss"] < 2 * r["bytes"]),
        "open": ("< 5 s", lambda r: r["open"] < 5000),
        "p95": ("< 50 ms", lambda r: r["p95"] < 50),
        "p95_open": ("< 50 ms", lambda r: r["p95_open"] < 50),
        "corpus_edit": ("< 200 ms", lambda r: r["corpus_edit"] < 200),
        "server_rss": ("< 2× the corpus", lambda r: r["server_rss"] < 2 * r["bytes"]),
    },
    "huge": {
        "check_cold_jobs": ("≤ 1.5× the floor", lambda r: r["check_cold_jobs"] <= 1.5 * r["floor"]),
        "check_warm": ("< 10 s", lambda r: r["check_warm"] < 10_000),
        "cli_cold_jobs_rss": ("< 1× the corpus", lambda r: r["cli_cold_jobs_rss"] < r["bytes"]),
        "cli_cold_jobs_all_rss": ("< 1× the corpus", lambda r: r["cli_cold_jobs_all_rss"] < r["bytes"]),
        "cli_fill_rss": ("< 1× the corpus", lambda r: r["cli_fill_rss"] < r["bytes"]),
        "cli_fill_all_rss": ("< 1× the corpus", lambda r: r["cli_fill_all_rss"] < r["bytes"]),
        "cli_warm_rss": ("< 1× the corpus", lambda r: r["cli_warm_rss"] < r["bytes"]),
        "open": ("< 10 s", lambda r: r["open"] < 10_000),
        "p95": ("< 50 ms", lambda r: r["p95"] < 50),
        "p95_open": ("< 50 ms", lambda r: r["p95_open"] < 50),
        "corpus_edit": ("< 200 ms", lambda r: r["corpus_edit"] < 200),
        "server_rss": ("< 1× the corpus", lambda r: r["server_rss"] < r["bytes"]),
    },
    "50": {
        "check_cold": ("< 3.5 s", lambda r: r["check_cold"] < 3500),
        "check_fill": ("< 1.2× the uncached", lambda r: r["check_fill"] < 1.2 * r["check_cold_jobs"]),
        "check_warm": ("< 1 s", lambda r: r["check_warm"] < 1000),
        "cli_rss": ("< 4× the corpus", lambda r: r["cli_rss"] < 4 * r["bytes"]),
        "open_cold": ("< 3 s", lambda r: r["open_cold"] < 3000),
        "open": ("< 1 s", lambda r: r["open"] < 1000),
        "p95": ("< 50 ms", lambda r: r["p95"] < 50),
        "p95_open": ("< 50 ms", lambda r: r["p95_open"] < 50),
        "p95_large": ("< 50 ms", lambda r: r["p95_large"] < 50),
        "lengthen": ("< 50 ms", lambda r: r["lengthen"] < 50),
        "corpus_edit": ("< 150 ms", lambda r: r["corpus_edit"] < 150),
        "server_rss": ("< 5× the corpus", lambda r: r["server_rss"] < 5 * r["bytes"]),
    },
}


def report(size: str, r: dict) -> str:
    mb = r["bytes"] / 1e6
    tier = size.split("-")[0]  # a part of a tier (``--docs``) is shown beside the whole tier's targets
    targets = TARGETS.get(tier, {})
    lines = [
        f"## {size} corpus ({mb:.1f} MB on disk in {r['docs']:,} documents), {r['records']:,} questions",
        *(f"   {load}" for load in r["load"]),
        *([f"   targets: the {tier} tier's, for its full size"] if tier != size and targets else []),
        f"{'row':<52} {'golden-lsp':>11} {'baseline':>22} {'ratio':>7}  target",
    ]

    def target(key: str) -> str:
        if key not in targets:
            return ""
        what, met = targets[key]
        try:
            return f"{what}: {'met' if met(r) else 'NOT MET'}"
        except KeyError:
            return what

    def row(name: str, key: str, base: float, base_name: str) -> None:
        if key in r:
            value = r[key]
            lines.append(
                f"{name:<52} {_ms(value):>11} {base_name + ' ' + _ms(base):>22} {value / base:>7.3f}  {target(key)}"
            )

    def memory(name: str, key: str) -> None:
        if key in r:
            lines.append(f"{name:<52} {r[key] / r['bytes']:>10.2f}× {'':>22} {'':>7}  {target(key)}")

    row("check, cold (--no-cache --jobs 1)", "check_cold", r["naive"], "naive")
    row("check, cold, --jobs 1, against the floor", "check_cold", r["floor"], "floor")
    row("check, cold, --jobs auto, against the floor", "check_cold_jobs", r["floor"], "floor")
    if "check_fill" in r:
        row(
            "check that fills the warm cache, against the uncached",
            "check_fill",
            r["check_cold_jobs"],
            "uncached",
        )
    row("check, warm cache", "check_warm", r["floor"], "floor")
    row("check, cold: CPU time (user + sys)", "check_cold_cpu", r["naive_cpu"], "naive CPU")
    row(
        "check, cold, --jobs auto: CPU time, all processes",
        "check_cold_jobs_cpu",
        r["floor_cpu"],
        "floor CPU",
    )
    row("check, warm: CPU time (user + sys)", "check_warm_cpu", r["naive_cpu"], "naive CPU")
    row("keystroke → answer, settled, p50", "p50", r["naive"], "naive")
    row("keystroke → answer, settled, p95", "p95", r["naive"], "naive")
    row("keystroke → answer, settled, max", "max", r["naive"], "naive")
    row("keystroke → answer, from the open, p50", "p50_open", r["naive"], "naive")
    row("keystroke → answer, from the open, p95", "p95_open", r["naive"], "naive")
    row("keystroke → answer, from the open, max", "max_open", r["naive"], "naive")
    row("the same, the largest document's records only, p50", "p50_large", r["naive"], "naive")
    row("the same, the largest document's records only, p95", "p95_large", r["naive"], "naive")
    row("the same, the largest document's records only, max", "max_large", r["naive"], "naive")
    row("open in the server, no cache (didOpen → publish)", "open_cold", r["naive"], "naive")
    row("open in the server, warm cache", "open", r["naive"], "naive")
    if "lengthen" in r:
        row("Lengthen code action, first request", "lengthen", r["naive"], "naive")
    row("corpus edit → republish (the most quoted document)", "corpus_edit", r["naive_doc"], "naive")
    memory("memory: CLI peak RSS / corpus bytes, cold, -j 1", "cli_rss")
    memory("memory: CLI peak RSS / corpus bytes, cold, -j auto", "cli_cold_jobs_rss")
    memory("memory: the same, with its workers (summed PSS, peak)", "cli_cold_jobs_all_rss")
    memory("memory: CLI peak RSS / corpus bytes, filling the cache", "cli_fill_rss")
    memory("memory: the same, with its workers (summed PSS, peak)", "cli_fill_all_rss")
    memory("memory: CLI peak RSS / corpus bytes, warm", "cli_warm_rss")
    memory("memory: server peak RSS / corpus bytes, no cache", "server_cold_rss")
    memory("memory: server peak RSS / corpus bytes, warm", "server_rss")
    memory("the same, before the most quoted document is opened", "server_questions_rss")
    if "server_empty_rss" in r:
        r["server_rss_above_empty"] = r["server_rss"] - r["server_empty_rss"]
        memory("the same, above an empty set's server", "server_rss_above_empty")
        lines.append(f"{'   (an empty set: server peak RSS)':<52} {r['server_empty_rss'] / 1e6:>8.0f} MB")
    if "before" in r:
        lines.append(_side_by_side(r))
    memory("disk: the warm cache / corpus bytes", "cache_bytes")
    parts = r["floor_parts"]
    lines.append(
        "floor's steps, ms (of them, in the documents a quote names): "
        + ", ".join(
            f"{step} {parts[step]:.0f}"
            + (f" ({parts['quoted ' + step]:.0f})" if "quoted " + step in parts else "")
            for step in ("json", *FLOOR_PARTS)
        )
    )
    for name, doc_mb, chunk, base in r["chunking"]:
        lines.append(
            f"{'chunking ' + name + f' ({doc_mb:.2f} MB), per MB':<52} {_ms(chunk):>11} "
            f"{'floor ' + _ms(base):>22} {chunk / base:>7.3f}"
        )
    return "\n".join(lines)


#: the server rows printed beside the code before (``--against``): key → name
_SERVER_ROWS = {
    "p50_open": "keystroke from the open, p50",
    "p95_open": "keystroke from the open, p95",
    "max_open": "keystroke from the open, max",
    "p50_large": "the largest document's records, p50",
    "p95_large": "the largest document's records, p95",
    "max_large": "the largest document's records, max",
    "p50": "keystroke, settled, p50",
    "p95": "keystroke, settled, p95",
    "max": "keystroke, settled, max",
    "open": "open, warm cache",
    "open_cold": "open, no cache",
    "corpus_edit": "corpus edit → republish",
    "server_rss": "server peak RSS, warm",
    "server_questions_rss": "the same, before a document is opened",
    "server_rss_above_empty": "the same, above an empty set's",
    "server_cold_rss": "server peak RSS, no cache",
}


def _side_by_side(r: dict) -> str:
    """The server rows of this code beside those of the code before (``--against``), each the
    median of the rounds, with each round's figures."""
    before = r["before"]
    before["server_rss_above_empty"] = before["server_rss"] - before["server_empty_rss"]
    for rounds in r["rounds"].values():
        for one in rounds:
            one["server_rss_above_empty"] = one["server_rss"] - one["server_empty_rss"]
    lines = [
        f"{'beside the code before (--against), median of rounds':<52} {'after':>11} {'before':>11} {'ratio':>7}  rounds after | before"
    ]
    for key, name in _SERVER_ROWS.items():
        if key not in before or key not in r:
            continue
        rss = "rss" in key

        def shown(v: float, rss: bool = rss) -> str:
            return f"{v / r['bytes']:.2f}×" if rss else _ms(v)

        each = " | ".join(
            ", ".join(shown(one[key]) for one in r["rounds"][side]) for side in ("after", "before")
        )
        lines.append(
            f"{name:<52} {shown(r[key]):>11} {shown(before[key]):>11} {r[key] / before[key]:>7.3f}  {each}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    tiers = [*SIZES, *MANY]
    parser.add_argument("--sizes", default=",".join(tiers), help=f"comma-separated, of {', '.join(tiers)}")
    parser.add_argument("--rows", choices=("all", "cli", "server"), default="all")
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3, help="runs of each CLI row (the median is shown)")
    parser.add_argument(
        "--docs",
        type=int,
        help="a many-documents tier (many, huge) with this many documents (megabytes and questions "
        "in proportion); its rows are shown beside the full tier's targets",
    )
    parser.add_argument(
        "--questions", type=int, help="with --docs: this many questions instead of the proportional count"
    )
    parser.add_argument(
        "--data",
        type=Path,
        help="keep the generated sets here, and the run's warm cache beside them (default: a temporary folder)",
    )
    parser.add_argument(
        "--lean",
        action="store_true",
        help="only the rows the huge tier's targets name (no one-process cold check, no server open "
        "without the cache, one cache-filling check): what fits the time of 5 GB",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="also run the server rows with this checkout's golden_lsp (the code before a change), "
        "taking turns, and print them side by side",
    )
    parser.add_argument("--server-rounds", type=int, default=2, help="with --against: rounds of each")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp)
        for size in args.sizes.split(","):
            many = MANY.get(size)
            if many is not None and args.docs and args.docs != many[1]:
                share = args.docs / many[1]
                size, many = (
                    f"{size}-{args.docs}",
                    (many[0] * share, args.docs, args.questions or max(1, round(many[2] * share))),
                )
            root = data / f"set-{size}"
            if not (root / "questions.jsonl").exists():
                if many is not None:
                    generate_many(root, *many)
                else:
                    generate(root, *SIZES[size])
            # resolved: the server names documents by their real paths (a symlinked folder too)
            measured = measure(
                root.resolve(),
                args.edits,
                args.rows,
                args.runs,
                args.against and args.against.resolve(),
                args.server_rounds,
                args.lean,
            )
            print(report(size, measured), flush=True)
            print()
    print(
        "naive: one str.find scan per quote, in this process; floor: read, decode, NFC, sha256, one "
        "Aho–Corasick pass, json.loads. Ratios are golden-lsp / baseline; medians of each row's runs. "
        "Targets are the issues' (22; 34 for huge); the machine's load is printed with each tier."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
