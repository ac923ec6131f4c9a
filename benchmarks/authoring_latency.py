"""Authoring requests' latency over real JSON-RPC, next to a hover as the baseline.

On a generated set (``keystroke_latency.synthetic_workspace``: a corpus of MB megabytes over 20
documents, QUESTIONS records) the server is opened on the questions file and one corpus chapter,
then each request is sent N times and timed from request to response: inlay hints for a screen
of 60 lines, the code lenses of a whole chapter, completion inside a quote being typed on a
half-typed line, references on a quote. The baseline, run side by side in the same session, is a
hover on a quote (the request every editor already sends as the mouse moves). Prints p50/p95 per
request and their ratios to the baseline's p50.

    python benchmarks/authoring_latency.py [--synthetic 5,2000] [--n 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keystroke_latency import started_server, synthetic_workspace, utf16, wait_for


async def measure(questions: Path, n: int) -> dict[str, list[float]]:
    client, published, arrived = await started_server(questions.parent)
    text = questions.read_text(encoding="utf-8")
    lines = text.split("\n")
    first = json.loads(lines[0])
    doc, quote = first["locators"][0]["doc"], first["locators"][0]["quote"]
    half = '{"id": "new", "locators": [{"doc": "' + doc + '", "quote": "' + " ".join(quote.split()[:2])
    text = text + half
    uri = from_fs_path(str(questions))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "jsonl", 1, text))
    )
    await wait_for(published, arrived, 1, timeout=600)
    chapter = questions.parent / "corpus" / doc
    curi = from_fs_path(str(chapter))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(curi, "markdown", 1, chapter.read_text(encoding="utf-8"))
        )
    )
    at_quote = types.Position(0, utf16(lines[0][: lines[0].index('"quote": "') + 12]))
    mid = len(lines) // 2
    requests = {
        "hover (baseline)": lambda: client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), at_quote)
        ),
        "inlay hints, 60 lines": lambda: client.text_document_inlay_hint_async(
            types.InlayHintParams(
                types.TextDocumentIdentifier(uri),
                types.Range(types.Position(mid, 0), types.Position(mid + 60, 0)),
            )
        ),
        "code lenses, one chapter": lambda: client.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(curi))
        ),
        "completion in a quote": lambda: client.text_document_completion_async(
            types.CompletionParams(
                types.TextDocumentIdentifier(uri), types.Position(len(lines) - 1, utf16(half))
            )
        ),
        "references on a quote": lambda: client.text_document_references_async(
            types.ReferenceParams(
                context=types.ReferenceContext(include_declaration=True),
                text_document=types.TextDocumentIdentifier(uri),
                position=at_quote,
            )
        ),
    }
    for send in requests.values():  # warm: the first code lens indexes the chapter's spans
        await send()
    times: dict[str, list[float]] = {name: [] for name in requests}
    for _ in range(n):
        for name, send in requests.items():
            start = time.perf_counter()
            await send()
            times[name].append((time.perf_counter() - start) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", metavar="MB,QUESTIONS", default="5,2000")
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    mb, count = (int(x) for x in args.synthetic.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        questions = synthetic_workspace(mb, count, Path(tmp))
        times = asyncio.run(measure(questions, args.n))
    base = statistics.median(times["hover (baseline)"])
    print(f"request → response, {args.n} each (synthetic: {mb} MB corpus, {count} questions)")
    for name, values in times.items():
        values.sort()
        p50, p95 = statistics.median(values), values[int(0.95 * (len(values) - 1))]
        print(f"  {name:26} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   ratio to hover p50: {p50 / base:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
