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
    python benchmarks/keystroke_latency.py --tier 50 --edits 50 --against /tmp/before --rounds 3

``--tier SIZE`` runs on the realistic set ``corpora.py`` generates for the speed table (0.3, 5 or
50 MB; ``--set DIR`` on one already generated). ``--against DIR`` times, instead of the CLI
baseline, the server of another checkout of golden-lsp (``DIR`` holds its ``golden_lsp`` package,
e.g. ``git worktree add /tmp/before <commit>``; ``--code DIR`` in place of this one) on the same
workspace and the same edits: each
code with a warm cache of its own (filled by its own ``check`` first), the two servers taking
turns (``--rounds``, in the order before, after, after, before, ...), each round a fresh server
timed from the moment the set opened. It prints p50/p95/max of each side, each round's p95 (the
noise), the same for the edits that typed into a query (every line's rules run again) and those
that broke or restored a quote (a quote not found: its hint and fix), and the ratio: a change's
cost on the keystroke path, next to the code before it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import SIZES, generate  # noqa: E402

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


def edits(text: str, n: int, seed: int = 7, doc: str | None = None):
    """n edits as an editor sends them: (line, old line text, new line text).

    Typing into a query, or toggling one quote broken/fixed; each replaces one line (``doc``: only
    lines whose first locator quotes that document).
    """
    rng = random.Random(seed)
    lines = text.split("\n")
    records = [
        i
        for i, line in enumerate(lines)
        if line.startswith("{") and (doc is None or json.loads(line)["locators"][0]["doc"] == doc)
    ]
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


def code_env(code: Path, cache: Path) -> dict[str, str]:
    """The environment that runs the golden-lsp of the checkout ``code`` with the warm cache ``cache``."""
    return {**os.environ, "PYTHONPATH": str(code), "GOLDEN_LSP_CACHE_DIR": str(cache)}


async def started_server(
    root: Path, env: dict[str, str] | None = None
) -> tuple[LanguageClient, dict[int, float], asyncio.Event]:
    """A real golden-lsp over stdio (``env``: that of another checkout, ``code_env``), initialised
    on ``root``; the arrival time of the answer to each document version — its publication, or
    its status notification when its diagnostics did not change (nothing is published then) —
    and an event set at each arrival."""
    client = LanguageClient("golden-lsp-bench", "1")
    published: dict[int, float] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            published.setdefault(params.version, time.perf_counter())
            arrived.set()

    @client.feature("golden-lsp/status")
    def on_status(params) -> None:
        version = (
            params._asdict().get("version") if hasattr(params, "_asdict") else dict(params).get("version")
        )
        if version is not None:
            published.setdefault(version, time.perf_counter())
            arrived.set()

    await client.start_io(sys.executable, "-m", "golden_lsp", "--stdio", cwd=str(root), env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=from_fs_path(str(root)),
            initialization_options={"statusNotification": True},
        )
    )
    client.initialized(types.InitializedParams())
    return client, published, arrived


def peak_rss(client: LanguageClient) -> int:
    """The server process's own peak resident memory (``VmHWM``), in bytes."""
    status = Path(f"/proc/{client._server.pid}/status").read_text()  # type: ignore[union-attr]
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))) * 1024


def is_quote_edit(old: str, new: str) -> bool:
    """Whether an edit of ``edits`` broke or restored a quote (else it typed into a query)."""
    return json.loads(old)["locators"] != json.loads(new)["locators"]


async def measure(
    questions: Path,
    n: int,
    env: dict[str, str] | None = None,
    rss: list | None = None,
    kinds: list | None = None,
) -> list[float]:
    """Milliseconds from each of ``n`` edits' didChange to the server's answer, sent back to back
    from the moment the set opened (its first publication); the server's peak RSS into ``rss``,
    and into ``kinds`` whether each edit broke or restored a quote (``is_quote_edit``)."""
    client, published, arrived = await started_server(questions.parent, env)
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
        if kinds is not None:
            kinds.append(is_quote_edit(old, new))
    if rss is not None:
        rss.append(peak_rss(client))
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


def cli_baseline(questions: Path, runs: int, env: dict[str, str] | None = None) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "golden_lsp", "--check", str(questions)],
            capture_output=True,
            check=False,
            cwd=questions.parent,
            env=env,
        )
        times.append((time.perf_counter() - start) * 1000)
    return times


def _p95(values: list[float]) -> float:
    values = sorted(values)
    return values[int(0.95 * (len(values) - 1))]


def side_by_side(questions: Path, n: int, against: Path, rounds: int, what: str, code: Path = ROOT) -> None:
    """The server of the checkout ``code`` and ``against``'s on the same workspace and edits,
    taking turns."""
    codes = {"before": against.resolve(), "after": code.resolve()}
    for where in codes.values():
        if not (where / "golden_lsp" / "__init__.py").is_file():
            raise SystemExit(f"{where}: no golden_lsp package there")
    caches = {name: Path(tempfile.mkdtemp(prefix=f"golden-lsp-{name}-cache-")) for name in codes}
    envs = {name: code_env(code, caches[name]) for name, code in codes.items()}
    try:
        for name in codes:  # each code's own warm cache, filled by its own check
            cli_baseline(questions, 1, envs[name])
        time.sleep(2.5)  # past the cache's racy-stat window: the servers trust the files' stats
        runs: dict[str, list[list[float]]] = {name: [] for name in codes}
        rss: dict[str, list[int]] = {name: [] for name in codes}
        kinds: dict[str, list[bool]] = {name: [] for name in codes}
        for k in range(rounds):
            for name in ("before", "after") if k % 2 == 0 else ("after", "before"):
                runs[name].append(asyncio.run(measure(questions, n, envs[name], rss[name], kinds[name])))
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)
    print(f"didChange → answer, from the open, {rounds} rounds × {n} edits each, taking turns ({what})")
    p50, p95 = {}, {}
    for name, code in codes.items():
        lat = sorted(x for run in runs[name] for x in run)
        p50[name], p95[name] = statistics.median(lat), _p95(lat)
        print(
            f"  {name:6} {code!s:<40} p50 {p50[name]:7.1f} ms   p95 {p95[name]:7.1f} ms   "
            f"max {lat[-1]:7.1f} ms   peak RSS {max(rss[name]) / 1e6:6.0f} MB"
        )
        print(f"         each round's p95: {', '.join(f'{_p95(run):.1f}' for run in runs[name])} ms")
        every = [x for run in runs[name] for x in run]
        for label, quote in (("typing into a query", False), ("breaking or restoring a quote", True)):
            some = sorted(x for x, q in zip(every, kinds[name]) if q is quote)
            if some:
                print(
                    f"         {label} ({len(some)}): p50 {statistics.median(some):7.1f} ms   "
                    f"p95 {_p95(some):7.1f} ms   max {some[-1]:7.1f} ms"
                )
    print(
        f"ratio after / before: p50 {p50['after'] / p50['before']:.3f}   p95 {p95['after'] / p95['before']:.3f}"
    )


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
    parser.add_argument("--tier", choices=sorted(SIZES), help="instead of the fixture, the speed table's set")
    parser.add_argument(
        "--set", type=Path, metavar="DIR", help="instead of the fixture, this set (as corpora.py writes)"
    )
    parser.add_argument(
        "--against", type=Path, metavar="DIR", help="time this checkout's server beside this one's"
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="with --against: runs of each server, taking turns"
    )
    parser.add_argument(
        "--code",
        type=Path,
        default=ROOT,
        metavar="DIR",
        help="with --against: the checkout timed as after (this one)",
    )
    args = parser.parse_args()
    if not (args.synthetic or args.tier or args.set) and not (args.fixture / "questions.jsonl").is_file():
        print(f"fixture not found: {args.fixture}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if args.set or args.tier:
            root = args.set.resolve() if args.set else Path(tmp).resolve() / f"set-{args.tier}"
            if args.tier:
                generate(root, *SIZES[args.tier])
            questions = root / "questions.jsonl"
            n_records = sum(1 for line in questions.open(encoding="utf-8") if line.startswith("{"))
            what = f"{root.name}: {sum(p.stat().st_size for p in (root / 'corpus').rglob('*.md')) / 1e6:.1f} MB, {n_records} questions"
        elif args.synthetic:
            mb, n = (int(x) for x in args.synthetic.split(","))
            questions, what = (
                synthetic_workspace(mb, n, Path(tmp)),
                f"synthetic: {mb} MB corpus, {n} questions",
            )
        else:
            questions, what = workspace(args.fixture, Path(tmp)), "conformance fixture, 60 questions"
        if args.against:
            side_by_side(questions, args.edits, args.against, args.rounds, what, args.code)
            return 0
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
