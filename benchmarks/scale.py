"""The speed table: every interactive and batch path at 0.3, 5 and 50 MB, next to baselines.

Each size is a realistic set from ``corpora.py`` (non-ASCII text with emoji, one large document,
a CRLF file, ~1 % ambiguous and ~1 % missing quotes). Every row is printed beside a baseline run
in the same process on the same machine, as a ratio:

- ``naive`` is a straightforward resolver written here: decode and normalise each document, then
  one ``str.find`` scan per quote for every occurrence (what a first implementation does);
- ``floor`` is the least any check must do: read, decode, NFC, sha256, one Aho–Corasick pass per
  document over its quotes, and ``json.loads`` of every line;
- chunking is reported in ms per MB of each document class, next to the floor's ms per MB of the
  same document.

Rows: ``check`` (CLI subprocess, medians of 3; cold with ``--no-cache`` in one process and with
the default ``--jobs auto``, then warm),
keystroke didChange → publishDiagnostics (p50/p95 over real JSON-RPC), opening the set in the
server (didOpen → first publish; without the warm cache, and with it), the first "Lengthen" code action on the large document, a corpus edit → republish
(the 2 MB document quoted by 4 % of the records), and peak memory of CLI and server as a
multiple of the corpus's bytes on disk (cold and warm). Times are medians; nothing here asserts a time.

    python benchmarks/scale.py [--sizes 0.3,5,50] [--edits 200] [--data DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
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
from corpora import SIZES, generate
from keystroke_latency import edits, utf16

from golden_lsp.core.chunker import chunk_document

CLI = [sys.executable, "-m", "golden_lsp"]


# --- baselines ------------------------------------------------------------------------------


def _documents(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted((root / "corpus").glob("*.md")):
        text = path.read_bytes().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        out[path.name] = unicodedata.normalize("NFC", text)
    return out


def _locators(root: Path) -> list[tuple[str, str]]:
    out = []
    for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            out.extend((loc["doc"], loc["quote"]) for loc in json.loads(line)["locators"])
    return out


def naive_resolve(root: Path, only_doc: str | None = None) -> tuple[int, int]:
    """One scan per quote over its document; (not found, ambiguous)."""
    docs = _documents(root)
    missing = ambiguous = 0
    for doc, quote in _locators(root):
        if only_doc is not None and doc != only_doc:
            continue
        text = docs[doc]
        n, pos = 0, text.find(quote)
        while pos != -1:
            n += 1
            pos = text.find(quote, pos + 1)
        missing += n == 0
        ambiguous += n > 1
    return missing, ambiguous


def floor(root: Path) -> None:
    """read, decode, NFC, sha256, one Aho–Corasick pass per document, json.loads of every line."""
    quotes: dict[str, set[str]] = {}
    for line in (root / "questions.jsonl").read_text(encoding="utf-8").split("\n"):
        if line.strip() and not line.lstrip().startswith("//"):
            for loc in json.loads(line)["locators"]:
                quotes.setdefault(loc["doc"], set()).add(loc["quote"])
    for path in sorted((root / "corpus").glob("*.md")):
        text = unicodedata.normalize("NFC", path.read_bytes().decode("utf-8").replace("\r\n", "\n"))
        hashlib.sha256(text.encode("utf-8")).hexdigest()
        automaton = ahocorasick.Automaton()
        for q in quotes.get(path.name, ()):
            automaton.add_word(q, q)
        if len(automaton):
            automaton.make_automaton()
            for _ in automaton.iter(text):
                pass


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


def cli_check(root: Path, *flags: str) -> tuple[float, int, float]:
    """(ms, peak RSS in bytes, CPU ms) of one ``golden-lsp check`` subprocess. The peak is the
    process's own ``VmHWM``, polled while it runs (``ru_maxrss`` would report this benchmark's
    own size: Linux keeps it across the fork and exec of a child)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*CLI, "check", *flags, str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=root
    )
    peak = 0
    while True:
        pid, _, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
            peak = max(
                peak,
                int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) * 1024,
            )
        except (OSError, StopIteration):
            pass
        time.sleep(0.005)
    proc.returncode = 0  # reaped above
    return (time.perf_counter() - start) * 1000, peak, (usage.ru_utime + usage.ru_stime) * 1000


def checks(root: Path, *flags: str, runs: int = 3) -> tuple[float, int, float]:
    """The median of each of ``cli_check``'s figures over ``runs`` runs."""
    got = [cli_check(root, *flags) for _ in range(runs)]
    return tuple(statistics.median(g[i] for g in got) for i in range(3))


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

        @self.client.feature("golden-lsp/status")
        def on_status(params) -> None:
            pass

    async def next_publish(self, uri: str, since: int, version: int | None = None, timeout: float = 900):
        deadline = time.perf_counter() + timeout
        while True:
            for entry in self.log[since:]:
                if entry[0] == uri and (version is None or entry[1] == version):
                    return entry
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.01, deadline - time.perf_counter()))

    def peak_rss(self) -> int:
        status = Path(f"/proc/{self.client._server.pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) * 1024


async def _opened(root: Path, env: dict | None = None) -> tuple[_Session, str, str, float, list]:
    """A server started on ``root`` with the questions file opened: (session, uri, text, ms from
    didOpen to the first publish, its diagnostics)."""
    s = _Session()
    client = s.client
    await client.start_io(*CLI, "--stdio", env=env)
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)))
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


async def open_without_cache(root: Path) -> tuple[float, int]:
    """(ms, peak RSS) of opening the set in a server that neither reads nor writes the warm cache."""
    s, _, _, ms, _ = await _opened(root, {**os.environ, "GOLDEN_LSP_NO_CACHE": "1"})
    rss = s.peak_rss()
    await _stop(s)
    return ms, rss


async def server_rows(root: Path, n_edits: int) -> dict[str, float]:
    s, uri, text, ms, diagnostics = await _opened(root)
    client = s.client
    out = {"open": ms}
    latencies, handed = [], []
    version = 1
    for version, (line, old, new) in enumerate(edits(text, n_edits), start=2):
        whole_line = types.Range(types.Position(line, 0), types.Position(line, utf16(old)))
        since, sent = len(s.log), time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangePartial(whole_line, new)],
            )
        )
        _, _, at, diagnostics, handed_at = await s.next_publish(uri, since, version)
        latencies.append((at - sent) * 1000)
        handed.append((handed_at - sent) * 1000)
    latencies.sort()
    handed.sort()
    out["p50"], out["p95"] = statistics.median(latencies), latencies[int(0.95 * (len(latencies) - 1))]
    out["p50_client"], out["p95_client"] = statistics.median(handed), handed[int(0.95 * (len(handed) - 1))]
    diagnostics = next(e[3] for e in reversed(s.log) if e[0] == uri and e[3] is not None)
    large_uri = from_fs_path(str(root / "corpus" / "large.md"))
    amb = next(
        (
            d
            for d in diagnostics
            if d.code == "quote-ambiguous"
            and d.related_information
            and d.related_information[0].location.uri == large_uri
        ),
        None,
    )
    if amb is not None:
        sent = time.perf_counter()
        await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb])
            )
        )
        out["lengthen"] = (time.perf_counter() - sent) * 1000
    chapter = root / "corpus" / "quoted.md"
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
        since, sent = len(s.log), time.perf_counter()
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
        _, _, at, _, _ = await s.next_publish(uri, since)
        times.append((at - sent) * 1000)
    out["corpus_edit"] = statistics.median(times)
    out["server_rss"] = s.peak_rss()
    await _stop(s)
    return out


def chunking_rows(root: Path) -> list[tuple[str, float, float, float]]:
    """(document, MB, chunker ms/MB, floor ms/MB) for one document of each size class."""
    rows = []
    for name in ("chapter-00.md", "quoted.md", "large.md"):
        raw = (root / "corpus" / name).read_bytes()
        text = unicodedata.normalize("NFC", raw.decode("utf-8"))
        mb = len(raw) / 1e6
        chunk_ms = timed(chunk_document, name, text, 1800, runs=3)
        floor_ms = timed(
            lambda: hashlib.sha256(
                unicodedata.normalize("NFC", raw.decode("utf-8")).encode("utf-8")  # noqa: B023 (called here)
            ).hexdigest(),
            runs=3,
        )
        rows.append((name, mb, chunk_ms / mb, floor_ms / mb))
    return rows


# --- the table ------------------------------------------------------------------------------


def measure(root: Path, n_edits: int) -> dict:
    corpus_bytes = sum(p.stat().st_size for p in (root / "corpus").glob("*.md"))
    n_records = sum(1 for line in (root / "questions.jsonl").open(encoding="utf-8") if line.startswith("{"))
    r: dict = {"bytes": corpus_bytes, "records": n_records}
    cpu = time.process_time()
    r["naive"] = timed(naive_resolve, root)
    r["naive_cpu"] = (time.process_time() - cpu) * 1000
    r["floor"] = timed(floor, root, runs=3)
    r["naive_doc"] = timed(naive_resolve, root, "quoted.md")
    large = _documents(root)["large.md"]
    amb = next((q for d, q in _locators(root) if d == "large.md" and large.count(q) > 1), None)
    # the code action offers one lengthening per listed occurrence (at most 20): so does the baseline
    r["naive_lengthen"] = (
        timed(lambda: [naive_lengthen(large, amb, at) for at in _first(large, amb, 20)])
        if amb
        else float("nan")
    )
    # one process (what the floor is measured as), then the default (--jobs auto: one per core)
    r["check_cold"], r["cli_rss"], r["check_cold_cpu"] = checks(root, "--no-cache", "--jobs", "1")
    r["check_cold_jobs"], _, _ = checks(root, "--no-cache")
    cli_check(root)  # fills the cache
    r["check_warm"], r["cli_warm_rss"], r["check_warm_cpu"] = checks(root)
    gc.collect()
    r["open_cold"], r["server_cold_rss"] = asyncio.run(open_without_cache(root))
    r.update(asyncio.run(server_rows(root, n_edits)))
    r["chunking"] = chunking_rows(root)
    return r


def _ms(v: float) -> str:
    return f"{v / 1000:.2f} s" if v >= 1000 else f"{v:.1f} ms"


def report(size: str, r: dict) -> str:
    mb = r["bytes"] / 1e6
    lines = [
        f"## {size} MB corpus ({mb:.1f} MB on disk), {r['records']:,} questions",
        f"{'row':<48} {'golden-lsp':>11} {'baseline':>22} {'ratio':>7}",
    ]

    def row(name: str, value: float, base: float, base_name: str) -> None:
        lines.append(f"{name:<48} {_ms(value):>11} {base_name + ' ' + _ms(base):>22} {value / base:>7.3f}")

    row("check, cold (--no-cache --jobs 1)", r["check_cold"], r["naive"], "naive")
    row("check, cold, --jobs 1, against the floor", r["check_cold"], r["floor"], "floor")
    row("check, cold, --jobs auto, against the floor", r["check_cold_jobs"], r["floor"], "floor")
    row("check, warm cache", r["check_warm"], r["naive"], "naive")
    row("check, cold: CPU time (user + sys)", r["check_cold_cpu"], r["naive_cpu"], "naive CPU")
    row("check, warm: CPU time (user + sys)", r["check_warm_cpu"], r["naive_cpu"], "naive CPU")
    row("keystroke didChange → publish, p50", r["p50"], r["naive"], "naive")
    row("keystroke didChange → publish, p95", r["p95"], r["naive"], "naive")
    row("  the same, after the test client's cattrs, p50", r["p50_client"], r["naive"], "naive")
    row("  the same, after the test client's cattrs, p95", r["p95_client"], r["naive"], "naive")
    row("open in the server, no cache (didOpen → publish)", r["open_cold"], r["naive"], "naive")
    row("open in the server, warm cache", r["open"], r["naive"], "naive")
    if "lengthen" in r:
        row("Lengthen code action, first request", r["lengthen"], r["naive_lengthen"], "naive")
    row("corpus edit → republish (quoted.md)", r["corpus_edit"], r["naive_doc"], "naive")
    lines.append(
        f"{'memory: CLI peak RSS / corpus bytes, cold, -j 1':<48} {r['cli_rss'] / r['bytes']:>11.1f}×"
    )
    lines.append(
        f"{'memory: CLI peak RSS / corpus bytes, warm':<48} {r['cli_warm_rss'] / r['bytes']:>11.1f}×"
    )
    lines.append(
        f"{'memory: server peak RSS / corpus bytes, cold':<48} {r['server_cold_rss'] / r['bytes']:>11.1f}×"
    )
    lines.append(
        f"{'memory: server peak RSS / corpus bytes, warm':<48} {r['server_rss'] / r['bytes']:>11.1f}×"
    )
    for name, doc_mb, chunk, base in r["chunking"]:
        lines.append(
            f"{'chunking ' + name + f' ({doc_mb:.1f} MB), per MB':<48} {_ms(chunk):>11} "
            f"{'floor ' + _ms(base):>22} {chunk / base:>7.3f}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.3,5,50", help=f"comma-separated, of {', '.join(SIZES)}")
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument(
        "--data", type=Path, help="keep the generated sets here (default: a temporary folder)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or Path(tmp)
        for size in args.sizes.split(","):
            mb, n = SIZES[size]
            root = data / f"set-{size}"
            if not (root / "questions.jsonl").exists():
                generate(root, mb, n)
            # resolved: the server names documents by their real paths (a symlinked folder too)
            print(report(size, measure(root.resolve(), args.edits)), flush=True)
            print()
    print(
        "naive: one str.find scan per quote, in this process; floor: read, decode, NFC, sha256, one "
        "Aho–Corasick pass, json.loads. Ratios are golden-lsp / baseline; medians of each row's runs."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
