"""One self-contained HTML page that shows a golden set: its figures, its findings, how it covers
the corpus, and — with a retrieval run — its curve.

Reviewers of a golden set want to *see* it: which parts of the corpus are labelled and which are
blind, whether one chapter dominates, how long the spans are, which records broke. Text tables
hide that shape. This module turns the result model (``model.Analysis``) and the corpus's
md-struct-v1 chunks into a page: a coverage strip per document (one cell per chunk, width by
characters, the count of records that label it as text, pattern and colour), the largest
unlabelled sections, charts drawn by Vega-Lite (``altair`` specs rendered offline to inline SVG
by ``vl-convert``, so nothing is fetched when the page is viewed), and a Jinja2 template. It reads
the model only; the figures come from ``stats``, the curve from ``evaluate`` and the LLM judge's
latest audit from the ``audit.json`` that ``golden-lsp judge --audit`` wrote, never computed twice.
The page is data from the set shown to whoever opens it, so it runs no script but its own: a
Content-Security-Policy admits only the page's one script (by its hash), every value is escaped,
and a link to the questions file is a relative path that cannot be read as a URL scheme.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.check.model import Analysis
from ..core.corpus.index import Corpus
from ..core.goldenset.config import ConfigError
from ..core.io.files import display, private_folder, read_regular, write_outputs
from . import agreementfile

#: how many unlabelled sections the "where the set is blind" list shows
BLIND_SECTIONS = 12
#: the cutoff the slices table shows (one of ``evalspec.DEFAULT_KS``; ``eval --by`` prints them all)
SLICE_K = 10


class ReportUnavailable(RuntimeError):
    """The report's libraries (the ``report`` extra) are not installed."""


@dataclass
class Cell:
    """One md-struct-v1 chunk in the coverage map, with the records whose answer it bears."""

    chunk_id: str
    start: int
    end: int
    heading_path: str
    records: list[tuple[str, str]] = field(default_factory=list)  # (id, query)

    @property
    def chars(self) -> int:
        return self.end - self.start

    @property
    def level(self) -> str:
        """The legend class: none, one, or several records."""
        n = len(self.records)
        return "none" if n == 0 else "one" if n == 1 else "many"


@dataclass
class DocCoverage:
    doc_id: str
    chars: int
    cells: list[Cell]

    @property
    def labelled_chars(self) -> int:
        return sum(c.chars for c in self.cells if c.records)

    @property
    def chunk_chars(self) -> int:
        return sum(c.chars for c in self.cells)


@dataclass(frozen=True)
class BlindSection:
    doc_id: str
    heading_path: str
    chars: int
    chunks: int


def coverage(corpus: Corpus, analysis: Analysis) -> list[DocCoverage]:
    """Every document's chunks with the records that count each one as answer-bearing."""
    labels: dict[str, list[tuple[str, str]]] = {}
    for rec in analysis.records:
        record = rec.record
        if record is None:
            continue
        seen: set[str] = set()
        for resolved in rec.result.resolved:
            for chunk in resolved.chunks:
                if chunk.chunk_id not in seen:
                    seen.add(chunk.chunk_id)
                    labels.setdefault(chunk.chunk_id, []).append((record.id or "?", record.query or ""))
    return [
        DocCoverage(
            doc.doc_id,
            doc.chars,
            [
                Cell(c.chunk_id, c.start, c.end, c.heading_path, labels.get(c.chunk_id, []))
                for c in doc.chunks
            ],
        )
        for doc in corpus.docs.values()
    ]


def blind_sections(docs: list[DocCoverage], limit: int = BLIND_SECTIONS) -> list[BlindSection]:
    """The largest sections (by heading path) none of whose chunks any record labels."""
    sections: dict[tuple[str, str], list[Cell]] = {}
    for doc in docs:
        for cell in doc.cells:
            sections.setdefault((doc.doc_id, cell.heading_path), []).append(cell)
    blind = [
        BlindSection(doc_id, path, sum(c.chars for c in cells), len(cells))
        for (doc_id, path), cells in sections.items()
        if not any(c.records for c in cells)
    ]
    blind.sort(key=lambda b: (-b.chars, b.doc_id, b.heading_path))
    return blind[:limit]


#: inline Markdown in a heading, each with what a reader sees of it (code spans apart: verbatim)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_INLINE = (
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),  # a link or an image: its text
    (re.compile(r"<((?:https?|mailto):[^>\s]+)>"), r"\1"),  # an autolink: its address
    (re.compile(r"</?[A-Za-z][^>]*>"), ""),  # inline HTML
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),  # emphasis
    (re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])"), r"\1"),
    (re.compile(r"~~(.+?)~~"), r"\1"),  # strikethrough
    (re.compile(r"\\([!-/:-@\[-`{-~])"), r"\1"),  # a backslash escape
    (re.compile(r"\s+#+\s*$"), ""),  # the closing sequence of an ATX heading
)


def plain(heading_path: str) -> str:
    """A heading path as a reader sees the headings: ``Using `timeout` **safely**`` reads
    "Using timeout safely" (emphasis, code, links and HTML of each heading dropped)."""
    return " > ".join(_plain_heading(part) for part in heading_path.split(" > "))


def _plain_heading(text: str) -> str:
    pieces = _CODE_SPAN.split(text)  # text, fence, code, text, … : code spans stay verbatim
    out = []
    for i in range(0, len(pieces), 3):
        part = pieces[i]
        for pattern, repl in _INLINE:
            part = pattern.sub(repl, part)
        out.append(part)
        if i + 2 < len(pieces):
            out.append(pieces[i + 2].strip())
    return "".join(out).strip()


# --- charts -------------------------------------------------------------------------------------


def _libraries():
    try:
        import altair
        import jinja2
        import vl_convert
    except ImportError:  # pragma: no cover - the test extra installs them
        raise ReportUnavailable(
            "the report needs the report extra: pip install 'golden-lsp[report]'"
        ) from None
    return altair, jinja2, vl_convert


def _svg(chart: Any, vl_convert: Any) -> str:
    """A chart as inline SVG (no script, no fetch), titled for screen readers."""
    svg = vl_convert.vegalite_to_svg(chart.to_json())
    return svg[svg.index("<svg") :]


def _bar(
    alt: Any, rows: list[dict], x: str, y: str, title: str, x_title: str, y_title: str, sort: Any = None
) -> Any:
    """Horizontal bars (long document names stay readable), each with its value written beside it."""
    base = alt.Chart(alt.Data(values=rows), title=title)
    category = alt.Y(f"{x}:N", title=x_title, sort=sort, axis=alt.Axis(labelLimit=260))
    bars = base.mark_bar(color="#3b6ea8").encode(
        y=category, x=alt.X(f"{y}:Q", title=y_title, axis=_count_axis(alt))
    )
    # the value written beside each bar: the chart reads without colour
    text = base.mark_text(align="left", dx=4, color="#111").encode(y=category, x=f"{y}:Q", text=f"{y}:Q")
    return (bars + text).properties(width=380, height=max(60, 28 * len(rows)))


def _count_axis(alt: Any) -> Any:
    """An axis of counts: whole-number ticks only (never 0.2 of a span)."""
    return alt.Axis(tickMinStep=1, format="d")


def charts(figures: dict, spans: list[int], evaluation: dict | None) -> dict[str, str]:
    """Name → inline SVG for every chart the page shows."""
    alt, _, vlc = _libraries()
    out: dict[str, str] = {}
    by_doc = [{"doc": d, "spans": n} for d, n in sorted(figures.get("spans_by_doc", {}).items())]
    if by_doc:
        out["spans_by_doc"] = _svg(
            _bar(alt, by_doc, "doc", "spans", "Spans by document", "document", "spans"), vlc
        )
    if spans:
        hist = (
            alt.Chart(alt.Data(values=[{"chars": n} for n in spans]), title="Span length")
            .mark_bar(color="#3b6ea8")
            .encode(
                x=alt.X(
                    "chars:Q",
                    bin=alt.Bin(maxbins=20, minstep=1),
                    title="span length (characters)",
                    axis=_count_axis(alt),
                ),
                y=alt.Y("count():Q", title="spans", axis=_count_axis(alt)),
            )
            .properties(width=520, height=220)
        )
        out["span_length"] = _svg(hist, vlc)
    by_count = [
        {"chunks": k, "records": n}
        for k, n in sorted(figures.get("records_by_chunk_count", {}).items(), key=lambda kv: int(kv[0]))
    ]
    if by_count:
        out["records_by_chunk_count"] = _svg(
            _bar(
                alt,
                by_count,
                "chunks",
                "records",
                "Records by answer-bearing chunk count",
                "answer-bearing chunks",
                "records",
                sort=[r["chunks"] for r in by_count],
            ),
            vlc,
        )
    for key, title in (("query_types", "Query types"), ("splits", "Splits")):
        rows = [{"value": k, "records": n} for k, n in sorted((figures.get(key) or {}).items())]
        if rows:
            out[key] = _svg(
                _bar(alt, rows, "value", "records", title, key.rstrip("s").replace("_", " "), "records"), vlc
            )
    if evaluation:
        out["curve"] = _svg(_curve(alt, evaluation), vlc)
    return out


def _curve(alt: Any, evaluation: dict) -> Any:
    rows = []
    for point in evaluation["curve"]:
        for metric in ("hit", "recall", "mrr"):
            value = point[metric]
            rows.append(
                {
                    "k": point["k"],
                    "metric": f"{metric}@k",
                    "value": value["value"],
                    "lo": value["ci"][0],
                    "hi": value["ci"][1],
                }
            )
    ks = [p["k"] for p in evaluation["curve"]]
    bounded = any(r["lo"] is not None for r in rows)
    title = (
        "Retrieval curve (95 % bootstrap interval)"
        if bounded
        else "Retrieval curve (too few records for an interval)"
    )
    base = alt.Chart(alt.Data(values=rows), title=title)
    x = alt.X(
        "k:Q",
        scale=alt.Scale(type="log", domain=[min(ks), max(ks)]),
        title="k (log scale)",
        axis=alt.Axis(values=ks),
    )
    y = alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title="score")
    # colour and marker both say the metric, in one legend of coloured markers: the curve reads
    # without colour. Band and line take their colour through channels of their own (fill,
    # stroke: the same scheme over the same sorted metrics), so the points' color and shape are
    # the only legend, and Vega-Lite merges it into one
    band = base.mark_area(opacity=0.18).encode(
        x=x, y="lo:Q", y2="hi:Q", fill=alt.Fill("metric:N", legend=None)
    )
    line = base.mark_line().encode(x=x, y=y, stroke=alt.Stroke("metric:N", legend=None))
    points = base.mark_point(filled=True, size=60, opacity=1).encode(
        x=x,
        y=y,
        color=alt.Color("metric:N", title="metric"),
        shape=alt.Shape("metric:N", title="metric"),
    )
    return alt.layer(*([band] if bounded else []), line, points).properties(width=520, height=260)


# --- the page -----------------------------------------------------------------------------------


def _href(path: Path, out_dir: Path) -> str:
    """A link from the page in ``out_dir`` to ``path``: relative, each part percent-encoded and the
    whole starting with ``./`` or ``../``, so no file name (``javascript:…``, ``set:v2.jsonl``) is
    read as a URL scheme."""
    try:
        rel = Path(os.path.relpath(path, out_dir)).as_posix()
    except ValueError:  # another drive
        return path.as_uri()
    quoted = urllib.parse.quote(rel, safe="/")
    return quoted if quoted.startswith("../") else f"./{quoted}"


def _script(env: Any) -> tuple[str, str]:
    """The page's one script and its SHA-256 (base64), which the page's CSP names: the only
    script the page runs."""
    text = env.loader.get_source(env, "report.js")[0]
    return text, base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render(golden: Any, analysis: Analysis, figures: dict, out: Path, evaluation: dict | None = None) -> str:
    """The report page for ``analysis`` of ``golden`` (a ``project.GoldenSet``), to be written at ``out``."""
    _alt, jinja2, _ = _libraries()
    docs = coverage(golden.corpus, analysis)
    spans = [r.span.end - r.span.start for rec in analysis.records for r in rec.result.resolved if r.span]
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("golden_lsp.practice", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["plain"] = plain
    questions = analysis.path
    script, script_hash = _script(env)
    findings = [
        {
            "severity": d.severity.value,
            "code": d.code,
            "message": d.message,
            "where": f"{d.path.name}:{d.range.line + 1}:{d.range.column + 1}",
            "href": f"{_href(d.path, out.parent)}#L{d.range.line + 1}",
        }
        for d in analysis.diagnostics
    ]
    return env.get_template("report.html.j2").render(
        title=f"golden set report — {questions.name}",
        questions=questions.name,
        corpus=str(golden.config.corpus_path().name),
        hit_rule=str(golden.hit_rule),
        max_chars=golden.corpus.max_chars,
        figures=figures,
        figures_json=json.dumps(figures, sort_keys=True),
        findings=findings,
        docs=docs,
        blind=blind_sections(docs),
        charts=charts(figures, spans, evaluation),
        evaluation=evaluation,
        judge=judge_audit(golden.config.audit_path(), golden.corpus),
        grader=grader_audit(golden.config.grade_audit_path()),
        owner=golden.config.owner,
        agreement=agreementfile.line(agreementfile.load(golden.config)),
        script=script,
        script_hash=script_hash,
    )


def judge_audit(path: Path, corpus: Corpus) -> dict | None:
    """The latest audit of the LLM judge (``audit.json``, written by ``golden-lsp judge --audit``
    beside the proposals), its disagreements with the corpus line each starts on; None when there
    is none, and the reason when it cannot be read."""
    try:
        result = json.loads(read_regular(path).decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return {"error": f"{display(path)} cannot be read: {exc}"}
    if not isinstance(result, dict) or not isinstance(result.get("items"), list):
        return {"error": f"{display(path)} is not an audit of golden-lsp judge"}
    disagreements = []
    for it in result["items"]:
        if isinstance(it, dict) and it.get("human") != it.get("judge"):
            doc = corpus.docs.get(it.get("doc", ""))
            start = it.get("char_start")
            line = doc.positions.raw_position(start)[0] + 1 if doc and isinstance(start, int) else None
            disagreements.append({**it, "line": line})
    return {**result, "file": display(path), "disagreement_items": disagreements}


def grader_audit(path: Path) -> dict | None:
    """The latest audit of the answer grader (``grade_audit.json``, written by ``golden-lsp grade
    --human``); None when there is none, and the reason when it cannot be read."""
    try:
        result = json.loads(read_regular(path).decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        return {"error": f"{display(path)} cannot be read: {exc}"}
    if not isinstance(result, dict) or not isinstance(result.get("disagreements"), list):
        return {"error": f"{display(path)} is not an audit of golden-lsp grade"}
    return {**result, "file": display(path)}


def report_path(golden: Any) -> Path:
    """Where the editor's report of a set goes: a per-set file in the user's own private folder of
    the temp folder (``golden-lsp-UID``, mode 0700), never the repo; a ConfigError when that
    folder, or the set's in it, is not private (another user could have planted a link)."""
    key = hashlib.sha256(str(golden.questions_path.resolve()).encode("utf-8")).hexdigest()[:16]
    user = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    try:
        folder = private_folder(private_folder(Path(tempfile.gettempdir()) / f"golden-lsp-{user}") / key)
    except OSError as exc:
        raise ConfigError(
            f"cannot write the report: the folder {display(exc.filename or '')} {exc.strerror or exc}"
        ) from None
    return folder / "report.html"


def write_report(
    golden: Any,
    out: Path,
    run_file: Path | None = None,
    retriever: str | None = None,
    by: list[str] | None = None,
) -> list[str]:
    """Render the report of ``golden`` (a ``project.GoldenSet``) and write it at ``out``
    atomically, never over an input of the set; with ``run_file`` or ``retriever`` it draws that
    run's curve (and its slices, ``by`` as ``eval --by``). Returns what was done about a report a
    killed earlier one left half-written."""
    golden.refuse_outputs({"report": out})
    analysis = golden.check()
    page = render(
        golden,
        analysis,
        figures(golden, analysis),
        out,
        evaluation(golden, analysis, run_file, retriever, by),
    )
    try:
        return write_outputs({out: page}, "report")
    except OSError as exc:
        raise ConfigError(f"cannot write {display(out)}: {exc.strerror or exc}") from None


def figures(golden: Any, analysis: Analysis) -> dict:
    """The set's figures, exactly as ``golden-lsp stats --format json`` prints them."""
    from .stats import set_stats

    return set_stats(analysis, golden.corpus)


def _known(x: float) -> float | None:
    """A bound of an interval, None when there is none (a mean over fewer than MIN_INTERVAL_N records)."""
    return None if x != x else float(x)  # NaN is the one value unequal to itself


def evaluation(
    golden: Any, analysis: Analysis, run_file: Path | None, retriever: str | None, by: list[str] | None = None
) -> dict | None:
    """The curve, reading aids, slices and per-query ranks of a run (or a retriever), as ``eval``
    computes them with its defaults (k 1–50, multi-hop rule any, 2,000 seeded bootstrap resamples);
    ``by``: the record fields to slice by besides hop, query type, split and document (``eval --by``)."""
    if run_file is None and retriever is None:
        return None
    from ..evaluate.evalspec import DEFAULT_KS, METRICS, MIN_INTERVAL_N
    from ..evaluate.evaluation import evaluate, sanity, signals, targets
    from ..evaluate.retrieval import run_of
    from ..evaluate.slices import slice_groups
    from ..evaluate.targets import Settings

    settings = Settings(DEFAULT_KS, "any", 2000, 0)
    tg = targets(golden)
    ev = evaluate(tg, run_of(tg, golden.corpus, max(settings.ks), run_file, None, retriever), settings)
    ev.groups.extend(slice_groups(tg.answerable, by or []))
    rows = {m: METRICS.index(m) for m in ("hit", "recall", "mrr")}
    curve = [
        {
            "k": k,
            **{
                m: {"value": float(ev.mean[i, j]), "ci": [_known(ev.lo[i, j]), _known(ev.hi[i, j])]}
                for m, i in rows.items()
            },
        }
        for j, k in enumerate(settings.ks)
    ]
    mrr_last = ev.values[:, METRICS.index("mrr"), -1]
    per_query = [
        {"id": t.query_id, "query": t.query, "rank": round(1 / v) if v > 0 else None}
        for t, v in zip(tg.answerable, mrr_last)
    ]
    at = settings.ks.index(SLICE_K)
    slices: dict[str, list[dict]] = {}
    for g in ev.groups:
        mean, lo, hi = ev.group_stats(g)
        small = len(g.rows) < MIN_INTERVAL_N
        slices.setdefault(g.by, []).append(
            {
                "value": g.value,
                "n": len(g.rows),
                "small": small,
                **{
                    m: {
                        "value": float(mean[i, at]),
                        "ci": [None, None] if small else [_known(lo[i, at]), _known(hi[i, at])],
                    }
                    for m, i in rows.items()
                },
            }
        )
    return {
        "description": f"{ev.run.name}: N = {ev.n} answerable queries; {ev.rule_text()}.",
        "min_interval_n": MIN_INTERVAL_N,
        "curve": curve,
        "slice_k": SLICE_K,
        "slices": [{"by": by, "groups": groups} for by, groups in slices.items() if len(groups) > 1],
        "signals": [{"text": n.message, "bad": n.severity != "info"} for n in sanity(ev) + signals(ev)],
        "per_query": per_query,
        "max_k": max(settings.ks),
    }
