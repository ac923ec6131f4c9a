"""``golden-lsp report`` as a subprocess: one self-contained page for the example set and the
conformance fixture, with and without a run; never written over an input. (The page is opened in
real Chromium by tests/editors/test_report_browser.py.)"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


class _Page(HTMLParser):
    """The facts of a page a test checks: every src/href, the coverage cells, the figures."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.cells: list[dict[str, str]] = []
        self.figures: dict[str, str] = {}
        self._key: str | None = None
        self.charts: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.urls += [a[k] for k in ("src", "href") if a.get(k)]
        if "cell" in (a.get("class") or "").split() and "data-chunk" in a:
            self.cells.append(a)
        if tag == "figure" and (a.get("id") or "").startswith("chart-"):
            self.charts.append(a["id"])
        self._key = a.get("data-key")

    def handle_data(self, data):
        if self._key:
            self.figures[self._key] = data.strip()
            self._key = None


def page(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def _set(tmp_path: Path, source: Path) -> Path:
    dest = tmp_path / "set"
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("golden-set.v1*"))
    return dest


@pytest.mark.parametrize("retriever", [None, "bm25"])
def test_report_of_the_example(cli, tmp_path, retriever):
    golden = _set(tmp_path, EXAMPLES)
    out = tmp_path / "out" / "report.html"
    proc = cli(
        ["report", golden, "--out", out, *(["--retriever", retriever] if retriever else [])], cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "golden-lsp: wrote out/report.html\n"
    stats = json.loads(cli(["stats", golden, "--format", "json"], cwd=tmp_path).stdout)
    p = page(out)
    assert p.figures["n_records"] == str(stats["n_records"]) and p.figures["n_spans"] == str(stats["n_spans"])
    assert p.cells and all(c["data-labels"].isdigit() for c in p.cells)
    assert all(not re.match(r"^(https?:)?//", u) for u in p.urls), p.urls  # nothing leaves the file
    assert ("chart-curve" in p.charts) == bool(retriever)
    html = out.read_text(encoding="utf-8")
    assert ("hit@k" in html) == bool(retriever) and "<script src" not in html


def test_report_of_the_conformance_fixture_with_a_run(cli, tmp_path, conformance):
    golden = tmp_path / "lab"
    shutil.copytree(conformance, golden)
    (golden / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    run = tmp_path / "run.jsonl"
    # a run that returns each record's own answer-bearing chunks first: hit@1 must then be 1
    lines = [json.loads(line) for line in (conformance / "golden-set.v1.jsonl").read_text().splitlines()]
    run.write_text(
        "".join(
            json.dumps({"query_id": r["query_id"], "chunk_ids": r["answer_bearing_chunk_ids"]}) + "\n"
            for r in lines
        ),
        encoding="utf-8",
    )
    for extra in ([], ["--run", run]):
        out = tmp_path / f"report{len(extra)}.html"
        proc = cli(["report", golden, "--out", out, *extra], cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        p = page(out)
        assert p.figures["n_records"] == "60" and p.figures["n_spans"] == "65"  # SPEC §8
        assert len(p.cells) == 265 and sum(int(c["data-labels"]) > 0 for c in p.cells) > 0
    html = out.read_text(encoding="utf-8")
    first = re.search(r"<tr><td>1</td><td>([0-9.]+) ", html)
    assert first and first.group(1) == "1.000"  # hit@1 of a perfect run


@pytest.mark.parametrize("victim", ["questions.jsonl", "golden-lsp.toml", "corpus/01-planning-a-hut-tour.md"])
def test_report_never_overwrites_an_input(cli, tmp_path, victim):
    golden = _set(tmp_path, EXAMPLES)
    before = (golden / victim).read_bytes()
    proc = cli(["report", golden, "--out", golden / victim], cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("golden-lsp: ") and proc.stderr.count("\n") == 1
    assert (golden / victim).read_bytes() == before


def _charts(html: str) -> dict[str, str]:
    """Each chart's inline SVG, by name."""
    return dict(re.findall(r'<figure id="chart-([a-z_]+)">(<svg.*?</svg>)', html, re.S))


def _axis_labels(svg: str) -> list[str]:
    return [
        t
        for g in re.findall(r'role-axis-label"[^>]*>(.*?)</g>', svg, re.S)
        for t in re.findall(r">([^<]*)</text>", g)
    ]


def test_a_small_sets_charts_count_whole_spans_name_headings_plainly_and_say_the_metric_in_colour(
    cli, tmp_path
):
    root = tmp_path / "small"
    (root / "corpus").mkdir(parents=True)
    (root / "corpus" / "guide.md").write_text(
        "# Using `timeout` **safely**\n\nA request without an answer fails after thirty seconds, always.\n\n"
        "## The [limits](https://example.org) of _retries_\n\nRetries are attempted three times, each a second apart.\n\n"
        "## Never labelled: `max_chars` and *friends*\n\nNobody asks about this paragraph, which is long enough.\n",
        encoding="utf-8",
    )
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    records = [
        ("q1", "When does a request fail?", "fails after thirty seconds"),
        ("q2", "How often are retries attempted?", "attempted three times"),
    ]
    (root / "questions.jsonl").write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "query": q,
                    "expected_answer": "As the guide says, in that paragraph.",
                    "locators": [{"doc": "guide.md", "quote": quote}],
                }
            )
            + "\n"
            for i, q, quote in records
        ),
        encoding="utf-8",
    )
    out = tmp_path / "report.html"
    proc = cli(["report", root, "--out", out, "--retriever", "bm25"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    charts = _charts(html)
    # counts are whole: no tick at 0.2 of a span or record
    for name in ("spans_by_doc", "span_length", "records_by_chunk_count"):
        numbers = [t for t in _axis_labels(charts[name]) if re.fullmatch(r"[0-9.,]+", t)]
        assert numbers and all("." not in t for t in numbers), (name, numbers)
    # headings as a reader sees them, not their Markdown
    blind = re.search(r'<table id="blind">.*?</table>', html, re.S).group(0)
    assert "guide.md &gt; Using timeout safely &gt; Never labelled: max_chars and friends" in blind
    paths = [c["data-path"] for c in page(out).cells]
    assert "guide.md > Using timeout safely > The limits of retries" in paths
    assert not any(mark in p for p in paths for mark in ("`", "**", "](", "_retries_"))
    # one legend, whose markers have the colours of the lines
    curve = charts["curve"]
    legend = re.findall(r'role-legend-symbol"[^>]*><path [^>]*d="([^"]+)" fill="(#[0-9a-f]{6})"', curve)
    assert len(legend) == 3 and len({d for d, _ in legend}) == 3  # three shapes
    marks = re.findall(r'class="mark-line role-mark.*?</g>', curve, re.S)
    lines = {c for m in marks for c in re.findall(r'<path [^>]*stroke="(#[0-9a-f]{6})"', m)}
    assert {fill for _, fill in legend} == lines and len(lines) == 3
    assert curve.count("role-legend-symbol") == 3  # not a second legend of black shapes


@pytest.mark.parametrize("name", ["set:v2.jsonl", "javascript:alert(1)<!--.jsonl", "a b#c%d.jsonl"])
def test_a_finding_links_to_its_questions_file_whatever_its_name(cli, tmp_path, name):
    golden = _set(tmp_path, EXAMPLES)
    questions = golden / name
    (golden / "questions.jsonl").rename(questions)
    with questions.open("a", encoding="utf-8") as f:
        f.write(
            json.dumps({"id": "bad1", "query": "Which?", "locators": [{"doc": "nope.md", "quote": "x"}]})
            + "\n"
        )
    line = len(questions.read_text(encoding="utf-8").splitlines())
    config = golden / "golden-lsp.toml"
    config.write_text(config.read_text().replace('"questions.jsonl"', json.dumps(name)))
    out = golden / "report.html"  # beside the questions file: the link would be its bare name
    proc = cli(["report", golden, "--out", out], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [href] = {u for u in page(out).urls if "#L" in u}
    assert href.startswith("./") and ":" not in href, href  # no scheme can be read in it
    assert unquote(urljoin(out.as_uri(), href)) == f"{unquote(questions.as_uri())}#L{line}"


def test_report_slices_match_eval_by(cli, tmp_path):
    """``report --by tenant`` shows the slices ``eval --by tenant`` computes (hit@10 by tenant, with
    N), a record's slice value escaped on the page and in eval's text."""
    golden = _set(tmp_path, EXAMPLES)
    questions = golden / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").splitlines()
    tenants = ["acme", "<b>globex</b>\x1b[2J"]
    out_lines, n = [], 0
    for line in lines:
        if line.startswith("{"):
            record = json.loads(line)
            record["tenant"] = tenants[n % 2]
            n += 1
            line = json.dumps(record, ensure_ascii=False)
        out_lines.append(line)
    questions.write_text("\n".join(out_lines) + "\n", encoding="utf-8")
    out = tmp_path / "report.html"
    proc = cli(["report", golden, "--retriever", "bm25", "--by", "tenant", "--out", out], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    ev = cli(["eval", golden, "--retriever", "bm25", "--by", "tenant", "--format", "json"], cwd=tmp_path)
    assert ev.returncode == 0, ev.stderr
    expected = {
        b["value"]: (b["n"], next(c["value"] for c in b["metrics"] if (c["metric"], c["k"]) == ("hit", 10)))
        for b in json.loads(ev.stdout)["breakdowns"]
        if b["by"] == "tenant"
    }
    assert set(expected) == set(tenants)
    html = out.read_text(encoding="utf-8")
    table = re.search(r'<table class="slices" data-by="tenant">(.*?)</table>', html, re.S)
    assert table, "no tenant slices on the page"
    rows = re.findall(r"<tr[^>]*><td>(.*?)</td><td>(\d+).*?</td><td>([0-9.]+)", table.group(1))
    shown = {value.replace("&lt;", "<").replace("&gt;", ">"): (int(k), float(hit)) for value, k, hit in rows}
    assert "<b>globex</b>" not in table.group(1)  # escaped, never markup
    text = cli(["eval", golden, "--retriever", "bm25", "--by", "tenant"], cwd=tmp_path).stdout
    assert "globex" in text and "\x1b" not in text  # a terminal is sent no control character
    assert {v: (k, round(hit, 3)) for v, (k, hit) in expected.items()} == shown
    assert 'data-by="hop"' in html  # the fixed breakdowns too, when they have two groups or more
