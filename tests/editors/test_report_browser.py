"""The HTML report in real headless Chromium: its numbers are the stats command's, its coverage
map has one cell per chunk with the right labelled count, nothing leaves the file, and it works
from the keyboard at desktop and phone width. Chromium and Node come from scripts/editor-deps.sh
(the VS Code test's tools); the README's picture (docs/report.png) is this test's report-preview.png."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

from editor_support import EXAMPLES, editor_deps, free_port, run

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.text.chunker import chunk_document

DRIVER = Path(__file__).resolve().parents[1] / "report" / "cdp_report.mjs"

DOM_FACTS = r"""(() => {
  const shown = {};
  document.querySelectorAll('#figures [data-key]').forEach((e) => { shown[e.dataset.key] = e.textContent.trim(); });
  const cells = [...document.querySelectorAll('.strip .cell')].map((c) => ({
    chunk: c.dataset.chunk, labels: Number(c.dataset.labels), text: c.textContent.trim(),
    focusable: c.tabIndex >= 0, label: c.getAttribute('aria-label') }));
  const urls = [...document.querySelectorAll('[src], [href]')].map((e) => e.getAttribute('src') || e.getAttribute('href'));
  const css = [...document.styleSheets].flatMap((s) => [...s.cssRules].map((r) => r.cssText)).filter((t) => t.includes('url('));
  return { shown, cells, urls, css, findings: document.querySelectorAll('#findings tbody tr').length,
           charts: [...document.querySelectorAll('figure[id^="chart-"] svg')].map((s) => s.closest('figure').id),
           perQuery: document.querySelectorAll('#per-query tbody tr').length };
})()"""


def _cli(args: list, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "golden_lsp", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )


def test_report_in_chromium(tmp_path: Path, output_dir: Path):
    deps = editor_deps(output_dir)
    golden = tmp_path / "golden"
    shutil.copytree(EXAMPLES, golden)
    out = output_dir / "report.html"
    made = _cli(["report", golden, "--retriever", "bm25", "--out", out], tmp_path)
    assert made.returncode == 0, made.stderr
    stats = json.loads(_cli(["stats", golden, "--format", "json"], tmp_path).stdout)

    shots = {"1280": str(output_dir / "report-1280.png"), "390": str(output_dir / "report-390.png")}
    config = {
        "url": out.as_uri(),
        "chromium": deps["GOLDEN_LSP_CHROMIUM"],
        "cdpPort": free_port(),
        "profile": str(tmp_path / "profile"),
        "widths": [1280, 390],
        "shots": shots,
        "facts": str(output_dir / "facts.json"),
        "expression": DOM_FACTS,
        "maxSecs": 90,
        "preview": {"path": str(output_dir / "report-preview.png"), "height": 1500},
    }
    (tmp_path / "cdp.json").write_text(json.dumps(config))
    res = run(
        [deps["GOLDEN_LSP_NODE"], DRIVER, tmp_path / "cdp.json"], timeout=150, out=output_dir / "cdp.log"
    )
    assert res.returncode == 0, res.stdout[-3000:]
    facts = json.loads(Path(config["facts"]).read_text())
    dom = facts["dom"]

    # the summary numbers are the stats command's own
    flat = {
        "n_records": stats["n_records"],
        "hop.single": stats["hop"]["single"],
        "hop.multi": stats["hop"]["multi"],
        "n_spans": stats["n_spans"],
        "n_unanswerable": stats["n_unanswerable"],
        **{f"span_chars.{k}": stats["span_chars"][k] for k in ("median", "min", "max")},
        "span_chars.mean": f"{stats['span_chars']['mean']:.1f}",  # the page rounds, the JSON does not
    }
    assert {k: dom["shown"][k] for k in flat} == {k: str(v) for k, v in flat.items()}

    # one cell per md-struct-v1 chunk, in corpus order, each with the number of records whose
    # built artifact line lists it as answer-bearing
    corpus = load_corpus(golden / "corpus")
    chunks = [c.chunk_id for d in corpus.docs.values() for c in chunk_document(d.doc_id, d.text)]
    bearing = Counter(
        cid
        for line in (golden / "golden-set.v1.jsonl").read_text().splitlines()
        for cid in json.loads(line)["answer_bearing_chunk_ids"]
    )
    assert [c["chunk"] for c in dom["cells"]] == chunks
    assert [c["labels"] for c in dom["cells"]] == [bearing[c] for c in chunks]
    assert any(c["labels"] == 0 for c in dom["cells"]) and any(c["labels"] > 1 for c in dom["cells"])
    # readable without colour: the count is written in every labelled cell, and said to screen readers
    assert all(c["text"] == (str(c["labels"]) if c["labels"] else "") for c in dom["cells"])
    assert all(
        c["focusable"] and c["label"].endswith(f"{c['labels']} record" + ("" if c["labels"] == 1 else "s"))
        for c in dom["cells"]
    )

    # nothing leaves the file: the only request is the page itself, no external URL in it
    assert facts["requests"] == [out.as_uri()], facts["requests"]
    assert not [u for u in dom["urls"] if not u.startswith("#") and ("//" in u or u.startswith("http"))]
    assert dom["css"] == []

    assert {"chart-spans_by_doc", "chart-span_length", "chart-records_by_chunk_count", "chart-curve"} <= set(
        dom["charts"]
    )
    assert dom["perQuery"] == stats["n_records"] - stats["n_unanswerable"]
    # no page-level horizontal scrolling at 1280 px nor at phone width
    for width, m in facts["widths"].items():
        assert m["scrollWidth"] <= m["clientWidth"], (width, m)
    assert facts["keyboard"]["focused"] and dom["cells"] and "·" in facts["keyboard"]["detail"]


#: a questions file name that is a script when a link is built from it as written: the HTML-like
#: comment ``<!--`` hides the ``.jsonl#Lnn`` that follows from JavaScript
HOSTILE_NAME = "javascript:void(window.__pwned=document.title='pwned')<!--.jsonl"
PLANTED = "<script>window.__pwned = 'inline'; document.title = 'pwned';</script>"

CSP_FACTS = r"""(() => ({
  csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || null,
  finding: (document.querySelector('#findings tbody a') || {}).href || null,
}))()"""


def test_report_link_and_csp_in_chromium(tmp_path: Path, output_dir: Path):
    """A finding's link made from a hostile questions file name opens that file and runs no
    script when clicked; the page's CSP blocks an inline script planted in it, while the page's
    own script still runs."""
    deps = editor_deps(output_dir)
    golden = tmp_path / "golden"
    shutil.copytree(EXAMPLES, golden, ignore=shutil.ignore_patterns("golden-set.v1*"))
    questions = golden / HOSTILE_NAME
    (golden / "questions.jsonl").rename(questions)
    bad = {
        "id": "bad1",
        "query": "Which?",
        "expected_answer": "Any.",
        "locators": [{"doc": "nope.md", "quote": "x"}],
    }
    with questions.open("a", encoding="utf-8") as f:
        f.write(json.dumps(bad) + "\n")
    bad_line = len(questions.read_text(encoding="utf-8").splitlines())
    config_file = golden / "golden-lsp.toml"
    config_file.write_text(
        config_file.read_text().replace('questions = "questions.jsonl"', f'questions = "{HOSTILE_NAME}"')
    )
    out = golden / "report.html"  # beside the questions file: the link is the file's name alone
    made = _cli(["report", golden, "--out", out], tmp_path)
    assert made.returncode == 0, made.stderr
    html = out.read_text(encoding="utf-8")
    assert "</main>" in html
    out.write_text(html.replace("</main>", PLANTED + "</main>", 1), encoding="utf-8")  # as if escaping failed

    config = {
        "url": out.as_uri(),
        "chromium": deps["GOLDEN_LSP_CHROMIUM"],
        "cdpPort": free_port(),
        "profile": str(tmp_path / "profile"),
        "widths": [1280],
        "shots": {"1280": str(output_dir / "report-hostile.png")},
        "facts": str(output_dir / "facts-hostile.json"),
        "expression": CSP_FACTS,
        "maxSecs": 90,
        "click": "#findings tbody a",
    }
    (tmp_path / "cdp.json").write_text(json.dumps(config))
    res = run(
        [deps["GOLDEN_LSP_NODE"], DRIVER, tmp_path / "cdp.json"],
        timeout=150,
        out=output_dir / "cdp-hostile.log",
    )
    assert res.returncode == 0, res.stdout[-3000:]
    facts = json.loads(Path(config["facts"]).read_text())

    # the CSP is there, names the page's one script by its hash, and blocked the planted one
    csp = facts["dom"]["csp"]
    assert (
        csp
        and "script-src 'sha256-" in csp
        and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    )
    assert facts["title"].startswith("golden set report"), facts["title"]
    assert [v for v in facts["violations"] if v["directive"].startswith("script-src")], facts["violations"]
    assert facts["keyboard"]["focused"] and "·" in facts["keyboard"]["detail"]  # its own script runs

    # the finding's link is a relative path that no browser reads as a scheme: a click opens the file
    click = facts["click"]
    assert click["href"].startswith(("./", "../")) and ":" not in click["href"].split("#")[0], click
    assert unquote(click["resolved"]) == unquote(questions.as_uri()) + f"#L{bad_line}", click
    assert click["pwned"] is None and click["title"] != "pwned", click
    assert [unquote(u.split("#")[0]) for u in click["requests"]] == [unquote(questions.as_uri())], click
