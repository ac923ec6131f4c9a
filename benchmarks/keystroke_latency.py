"""Keystroke feedback latency: didChange → publishDiagnostics, next to a full CLI check.

Runs the real server over JSON-RPC on the conformance fixture (../shared/conformance/ai-rag-lab:
60 questions over a 300 KB corpus), or on a generated corpus and set of any size, sends N
incremental single-character edits to random records — typing into a query, breaking and
restoring a quote — and times each from the didChange to the publishDiagnostics that carries
its version. The baseline, run side by side on the same machine,
is a full ``golden-lsp --check`` of the same file as a subprocess (what a save-and-run workflow
costs). Prints p50/p95/max and their ratio to the baseline; the target is p95 under 50 ms.

    python benchmarks/keystroke_latency.py [--edits 300] [--fixture DIR]
    python benchmarks/keystroke_latency.py --synthetic 50,10000 --edits 100 --cli-runs 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT.parent / "shared" / "conformance" / "ai-rag-lab"


def workspace(fixture: Path, into: Path) -> Path:
    """A config beside a copy of the questions file, pointing at the fixture's corpus."""
    (into / "golden-lsp.toml").write_text(f'corpus = "{(fixture / "corpus").as_posix()}"\n', encoding="utf-8")
    questions = into / "questions.jsonl"
    questions.write_text((fixture / "questions.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    return questions


def synthetic_workspace(megabytes: int, n_questions: int, into: Path, seed: int = 11) -> Path:
    """A generated corpus of ``megabytes`` over 20 documents and ``n_questions`` anchored in it.

    Every paragraph carries a unique marker word, so each question quotes a unique phrase.
    """
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(2000)]
    corpus = into / "corpus"
    corpus.mkdir()
    n_docs, per_doc = 20, megabytes * 1_000_000 // 20
    paragraphs = []
    for d in range(n_docs):
        parts, size, p = [f"# Document {d}\n\n"], 0, 0
        while size < per_doc:
            if p % 12 == 0:
                parts.append(f"## Section {p}\n\n")
            marker = f"m{d}x{p}"
            body = " ".join(rng.choice(words) for _ in range(60))
            parts.append(f"{marker} {body}.\n\n")
            paragraphs.append((f"d{d:02}.md", f"{marker} {body[:30].rsplit(' ', 1)[0]}"))
            size += len(parts[-1])
            p += 1
        (corpus / f"d{d:02}.md").write_text("".join(parts), encoding="utf-8")
    (into / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    questions = into / "questions.jsonl"
    with questions.open("w", encoding="utf-8") as f:
        for i, (doc, quote) in enumerate(rng.sample(paragraphs, n_questions)):
            f.write(
                json.dumps(
                    {
                        "id": f"s{i:05}",
                        "query": f"synthetic question {i}?",
                        "expected_answer": f"the paragraph that starts with {quote}",
                        "locators": [{"doc": doc, "quote": quote}],
                        "hop": "single",
                        "tags": [],
                    }
                )
                + "\n"
            )
    return questions


def edits(text: str, n: int, seed: int = 7):
    """n edits as an editor sends them: (line, old line text, new line text).

    Typing into a query, or toggling one quote broken/fixed; each replaces one line.
    """
    rng = random.Random(seed)
    lines = text.split("\n")
    records = [i for i, line in enumerate(lines) if line.startswith("{")]
    current = list(lines)
    for _ in range(n):
        i = rng.choice(records)
        obj = json.loads(current[i])
        if rng.random() < 0.7:
            obj["query"] += rng.choice("abcdefgh ")
        else:
            original = json.loads(lines[i])["locators"][0]["quote"]
            q = obj["locators"][0]["quote"]
            obj["locators"][0]["quote"] = original if q != original else original + "~"
        old, current[i] = current[i], json.dumps(obj, ensure_ascii=False)
        yield i, old, current[i]


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def started_server(root: Path) -> tuple[LanguageClient, dict[int, float], asyncio.Event]:
    """A real golden-lsp over stdio, initialised on ``root``; the arrival time of each
    publication by document version, and an event set at each arrival."""
    client = LanguageClient("golden-lsp-bench", "1")
    published: dict[int, float] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            published[params.version] = time.perf_counter()
            arrived.set()

    @client.feature("golden-lsp/status")
    def on_status(params) -> None:  # the status-bar notification; not timed here
        pass

    await client.start_io(sys.executable, "-m", "golden_lsp", "--stdio")
    await client.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=from_fs_path(str(root)))
    )
    client.initialized(types.InitializedParams())
    return client, published, arrived


async def measure(questions: Path, n: int) -> list[float]:
    client, published, arrived = await started_server(questions.parent)
    uri = from_fs_path(str(questions))
    text = questions.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "jsonl", 1, text))
    )
    await wait_for(published, arrived, 1, timeout=600)  # the first analysis indexes the corpus
    latencies = []
    for version, (line, old, new) in enumerate(edits(text, n), start=2):
        whole_line = types.Range(types.Position(line, 0), types.Position(line, utf16(old)))
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangePartial(whole_line, new)],
            )
        )  # incremental, as editors send
        await wait_for(published, arrived, version)
        latencies.append((published[version] - sent) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return latencies


async def wait_for(published: dict, arrived: asyncio.Event, version: int, timeout: float = 30) -> None:
    deadline = time.perf_counter() + timeout
    while version not in published:
        arrived.clear()
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            raise TimeoutError(f"no diagnostics for version {version}")
        try:
            await asyncio.wait_for(arrived.wait(), remaining)
        except asyncio.TimeoutError:
            pass


def cli_baseline(questions: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "golden_lsp", "--check", str(questions)], capture_output=True, check=False
        )
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--cli-runs", type=int, default=7)
    parser.add_argument("--fixture", type=Path, default=FIXTURE)
    parser.add_argument(
        "--synthetic",
        metavar="MB,QUESTIONS",
        help="instead of the fixture, a generated corpus and set, e.g. 50,10000",
    )
    args = parser.parse_args()
    if not args.synthetic and not (args.fixture / "questions.jsonl").is_file():
        print(f"fixture not found: {args.fixture}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if args.synthetic:
            mb, n = (int(x) for x in args.synthetic.split(","))
            questions, what = (
                synthetic_workspace(mb, n, Path(tmp)),
                f"synthetic: {mb} MB corpus, {n} questions",
            )
        else:
            questions, what = workspace(args.fixture, Path(tmp)), "conformance fixture, 60 questions"
        lat = sorted(asyncio.run(measure(questions, args.edits)))
        cli = sorted(cli_baseline(questions, args.cli_runs))
    p50, p95 = statistics.median(lat), lat[int(0.95 * (len(lat) - 1))]
    base = statistics.median(cli)
    print(f"didChange → publishDiagnostics over {len(lat)} edits ({what})")
    print(f"  p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {lat[-1]:7.1f} ms   (target: p95 < 50 ms)")
    print(f"baseline: full `golden-lsp --check` subprocess, median of {len(cli)}: {base:7.1f} ms")
    print(f"ratio to baseline: p50 {p50 / base:.3f}   p95 {p95 / base:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
