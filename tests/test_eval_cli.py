"""``eval``, ``qrels`` and ``retrieve`` as subprocesses: hand-computed metrics on a crafted run, the
gate, fingerprints, another chunking, the DuckDB file, and BM25 on the example set."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from core_support import SAMPLE_LINES, make_project

from golden_lsp.core.goldenset.config import Config
from golden_lsp.core.goldenset.project import GoldenSet

duckdb = pytest.importorskip("duckdb")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def chunk_ids(root: Path) -> dict[str, str]:
    """Short names of the sample corpus's four md-struct-v1 chunks: G1 (Guide), G2 (Tables), G3 (Lists), F (FAQ)."""
    corpus = GoldenSet(Config(corpus=root / "corpus", questions=root / "questions.jsonl")).corpus
    names = {
        "guide.md > Guide": "G1",
        "guide.md > Guide > Tables": "G2",
        "guide.md > Guide > Lists": "G3",
        "faq.md > FAQ": "F",
    }
    return {names[c.heading_path]: c.chunk_id for d in corpus.docs.values() for c in d.chunks}


def spans(root: Path) -> dict[str, list]:
    gs = GoldenSet(Config(corpus=root / "corpus", questions=root / "questions.jsonl"))
    return {r.record.id: [x.span for x in r.result.resolved] for r in gs.analyze().records}


def trec(lines: list[tuple[str, str, float]]) -> str:
    return "".join(f"{q} Q0 {d} {i} {s} crafted\n" for i, (q, d, s) in enumerate(lines, 1))


@pytest.fixture
def crafted(project: Path) -> tuple[Path, dict[str, str]]:
    """A run over the sample set (q1..q7; q5 is multi-hop over G3 and F) with every hard case."""
    c = chunk_ids(project)
    rows = [
        ("q1", c["G2"], 2.0),
        ("q1", c["G1"], 1.0),  # first bearing chunk at rank 2
        ("q2", c["G1"], 3.0),
        ("q2", c["G1"], 2.5),
        ("q2", c["G2"], 1.0),  # a duplicate ID counts once
        ("q3", c["G1"], 2.0),
        ("q3", c["F"], 1.0),
        ("q3", c["G3"], 1.0),  # a tie between F and G3
        # q4 is missing from the run
        ("q5", c["F"], 3.0),
        ("q5", c["G1"], 2.0),
        ("q5", c["G3"], 1.0),  # multi-hop: F at 1, G3 at 3
        ("q6", c["F"], 1.0),
        ("q7", c["G1"], 3.0),
        ("q7", c["G2"], 2.0),
        ("q7", c["G3"], 1.0),  # never the bearing F
        ("zz", c["F"], 1.0),  # not a query of the set
    ]
    path = project / "crafted.trec"
    path.write_text(trec(rows), encoding="utf-8")
    return path, c


def metrics(out: dict, metric: str, k: int) -> dict:
    return next(m for m in out["metrics"] if m["metric"] == metric and m["k"] == k)


def run_eval(cli, cwd: Path, *args) -> tuple[int, dict]:
    proc = cli(["eval", "--format", "json", *args], cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_crafted_run_equals_hand_computed_values(crafted, project, cli):
    path, c = crafted
    rank_q3 = 2 if c["G3"] > c["F"] else 3  # trec_eval breaks the tie by docno, descending
    code, out = run_eval(cli, project, "--run", path, "--k", "1,3", "--bootstrap", "500")
    assert code == 0
    assert out["n"] == 7 and out["missing"] == ["q4"] and out["unknown_queries"] == ["zz"]
    assert out["run"]["duplicates"] == 1 and out["run"]["format"] == "trec"
    expected = {
        ("hit", 1): 2 / 7,  # q5 (F), q6
        ("hit", 3): 5 / 7,  # q1, q2, q3, q5, q6
        ("mrr", 3): (1 / 2 + 1 / 2 + 1 / rank_q3 + 1 + 1) / 7,  # q2's G2 is at rank 2, not 3: dedup
        ("recall", 1): (1 / 2 + 1) / 7,  # q5 has two bearing chunks, one at rank 1
        ("recall", 3): 5 / 7,
        ("precision", 3): (1 + 1 + 1 + 2 + 1) / 3 / 7,
        ("ndcg", 3): (
            1 / math.log2(3) * 2
            + 1 / math.log2(rank_q3 + 1)
            + (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
            + 1
        )
        / 7,
    }
    for (metric, k), value in expected.items():
        m = metrics(out, metric, k)
        assert m["value"] == pytest.approx(value, abs=1e-6), (metric, k)
        assert (
            m["n"] == 7
            and m["hit_rule"] == "any_overlap"
            and m["multi"] == "any"
            and m["misses"] == "scored 0"
        )
        assert m["ci"][0] <= m["value"] <= m["ci"][1]
    q6 = next(q for q in out["per_query"] if q["query_id"] == "q6")
    faq = GoldenSet(Config(corpus=project / "corpus")).corpus.docs["faq.md"].chunks[0]
    span = spans(project)["q6"][0]
    assert q6["iou@1"] == pytest.approx((span.end - span.start) / (faq.end - faq.start))
    assert next(q for q in out["per_query"] if q["query_id"] == "q4")["missing"] is True


def test_multi_hop_rule_all(crafted, project, cli):
    path, _ = crafted
    _, any_ = run_eval(cli, project, "--run", path, "--k", "1,3", "--bootstrap", "200")
    _, all_ = run_eval(cli, project, "--run", path, "--k", "1,3", "--multi", "all", "--bootstrap", "200")
    q5 = {
        r: next(q for q in out["per_query"] if q["query_id"] == "q5")
        for r, out in (("any", any_), ("all", all_))
    }
    assert (q5["any"]["hit@1"], q5["any"]["mrr@3"]) == (1.0, 1.0)
    assert (q5["all"]["hit@1"], q5["all"]["hit@3"]) == (0.0, 1.0)
    assert q5["all"]["mrr@3"] == pytest.approx(1 / 3)  # complete at rank 3, where G3 joins F
    assert metrics(all_, "hit", 1)["value"] == pytest.approx(1 / 7)
    assert metrics(all_, "recall", 1)["value"] == metrics(any_, "recall", 1)["value"]  # chunk-level
    assert metrics(all_, "hit", 1)["multi"] == "all"


def test_text_output_says_k_rules_n_interval_and_misses(crafted, project, cli):
    path, _ = crafted
    proc = cli(["eval", "--run", path, "--k", "1,3", "--bootstrap", "300"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "N = 7 answerable records; 1 missing from the run, scored 0 (q4)" in text
    assert "1 duplicate ID counted once" in text and "1 run query not in the set" in text
    assert "(md-struct-v1/max_chars=1800, 4 chunks)" in text and "0 chunk IDs not in the chunking" in text
    header = (
        "hit — hit rule any_overlap, multi-hop rule any, a query missing from the run scores 0 (1 missing), "
        "95% bootstrap interval (300 resamples, seed 0), N=7"
    )
    assert header in text
    line = next(ln for ln in text.splitlines() if ln.strip().startswith("hit@3"))
    assert "0.714  [" in line and "N=7" in line


def test_run_formats_are_detected_and_agree(crafted, project, cli):
    path, c = crafted
    _, from_trec = run_eval(cli, project, "--run", path, "--k", "1,3", "--bootstrap", "0")
    order = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        order.setdefault(q, {})[d] = max(float(s), order.get(q, {}).get(d, -1))
    (project / "run.ranx.json").write_text(json.dumps(order), encoding="utf-8")
    _, from_ranx = run_eval(
        cli, project, "--run", project / "run.ranx.json", "--k", "1,3", "--bootstrap", "0"
    )
    rank_q3 = [c["G1"], *sorted([c["F"], c["G3"]], reverse=True)]
    jsonl = [
        {"query_id": "q1", "chunk_ids": [c["G2"], c["G1"]]},
        {"query_id": "q2", "chunk_ids": [c["G1"], c["G1"], c["G2"]]},
        {"query_id": "q3", "chunk_ids": rank_q3},
        {"query_id": "q5", "chunk_ids": [c["F"], c["G1"], c["G3"]]},
        {"query_id": "q6", "chunk_ids": [c["F"]]},
        {"query_id": "q7", "chunk_ids": [c["G1"], c["G2"], c["G3"]]},
    ]
    (project / "run.jsonl").write_text("".join(json.dumps(o) + "\n" for o in jsonl), encoding="utf-8")
    _, from_jsonl = run_eval(cli, project, "--run", project / "run.jsonl", "--k", "1,3", "--bootstrap", "0")
    assert (from_ranx["run"]["format"], from_jsonl["run"]["format"]) == ("ranx", "jsonl")
    values = [[m["value"] for m in out["metrics"]] for out in (from_trec, from_ranx, from_jsonl)]
    assert values[0] == values[1] == values[2]
    assert from_trec["metrics"][0]["ci"] == [None, None]  # --bootstrap 0: no interval, said so


def test_bad_run_is_a_located_usage_error(project, cli):
    (project / "bad.trec").write_text("q1 Q0 x 1 1.0 tag\nq2 Q0 y 1\n", encoding="utf-8")
    proc = cli(["eval", "--run", "bad.trec"], cwd=project)
    assert proc.returncode == 2
    assert (
        proc.stderr
        == "golden-lsp: bad.trec:2: a TREC run line has 6 fields (qid Q0 docno rank score tag), not 4\n"
    )


def worse(crafted_path: Path, project: Path) -> Path:
    """The crafted run with every bearing chunk pushed out of the top 3."""
    lines = [ln for ln in crafted_path.read_text().splitlines() if ln.split()[0] in ("q7", "zz")]
    path = project / "worse.trec"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_gate_exits_1_on_a_worse_run_and_0_on_an_equal_one(crafted, project, cli):
    path, _ = crafted
    bad = worse(path, project)
    proc = cli(["eval", "--run", bad, "--baseline", path, "--gate", "hit@3", "--k", "1,3"], cwd=project)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "gate hit@3: Δ = -0.714" in proc.stdout and "FAIL: dropped and the interval excludes 0" in proc.stdout
    )
    same = cli(["eval", "--run", path, "--baseline", path, "--gate", "hit@3", "--k", "1,3"], cwd=project)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "gate hit@3: Δ = +0.000" in same.stdout and "— pass" in same.stdout


def test_compare_reports_paired_deltas_and_p(crafted, project, cli):
    path, _ = crafted
    bad = worse(path, project)
    code, out = run_eval(cli, project, "--run", path, "--compare", bad, "--k", "1,3")
    assert code == 0
    [cmp] = out["comparisons"]
    d = next(x for x in cmp["deltas"] if x["metric"] == "hit" and x["k"] == 3)
    assert d["value"] == pytest.approx(5 / 7) and d["ci"][0] > 0 and cmp["n"] == 7
    # five equal deltas and two zeros: the exact sign-flip p-value is 2 / 2**5
    assert d["p"] == pytest.approx(2 / 32, abs=0.02)


def test_floor(crafted, project, cli):
    path, _ = crafted
    assert cli(["eval", "--run", path, "--k", "1,3", "--floor", "hit@3=0.7"], cwd=project).returncode == 0
    proc = cli(["eval", "--run", path, "--k", "1,3", "--floor", "hit@3=0.75"], cwd=project)
    assert proc.returncode == 1 and "floor hit@3 ≥ 0.75: 0.714" in proc.stdout
    assert cli(["eval", "--run", path, "--floor", "hit@7=0.5"], cwd=project).returncode == 2


def test_fingerprint_mismatch_is_refused(crafted, project, cli, tmp_path):
    path, _ = crafted
    db = tmp_path / "results.duckdb"
    _, stored = run_eval(cli, project, "--run", path, "--k", "1,3", "--db", db)
    run_id = stored["db_run_id"]
    args = ["eval", "--run", path, "--k", "1,3", "--db", db, "--hit-rule", "span_containment"]
    refused = cli([*args, "--baseline", f"db:{run_id}", "--gate", "hit@3"], cwd=project)
    assert refused.returncode == 2
    assert "refusing to compare" in refused.stderr and "--allow-different-sets" in refused.stderr
    latest = cli([*args, "--baseline", "db:latest", "--gate", "hit@3"], cwd=project)
    assert latest.returncode == 2 and "no stored run has fingerprint" in latest.stderr
    assert "pass --allow-different-sets" in latest.stderr
    allowed = cli([*args, "--baseline", f"db:{run_id}", "--allow-different-sets"], cwd=project)
    assert allowed.returncode == 0, allowed.stderr
    assert "was measured against another golden set" in allowed.stdout and "fingerprints " in allowed.stdout


def test_baseline_latest_with_different_sets_allowed_is_the_latest_run_of_any_set(
    crafted, project, cli, tmp_path
):
    path, _ = crafted
    db = tmp_path / "results.duckdb"
    _, first = run_eval(cli, project, "--run", path, "--k", "1,3", "--db", db)
    _, second = run_eval(cli, project, "--run", path, "--k", "1,3", "--db", db)
    other = ["eval", "--run", path, "--k", "1,3", "--hit-rule", "span_containment", "--db", db]
    proc = cli([*other, "--baseline", "db:latest", "--allow-different-sets"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    latest = second["db_run_id"]
    (header,) = [line for line in proc.stdout.splitlines() if line.startswith("baseline: ")]
    assert f" − db:{latest} (" in header and "crafted.trec, the latest stored run of any set)" in header
    assert "was measured against another golden set" in proc.stdout
    _, out = run_eval(cli, project, *other[1:], "--baseline", "db:latest", "--allow-different-sets")
    (cmp,) = out["comparisons"]
    # the run just stored (span_containment) is now the latest: the baseline is read before storing
    assert cmp["b"].startswith("db:") and latest not in cmp["b"] and first["db_run_id"] not in cmp["b"]
    assert cmp["fingerprints"][0] == cmp["fingerprints"][1]


def test_duckdb_holds_the_documented_tables(crafted, project, cli, tmp_path):
    path, _ = crafted
    db = tmp_path / "results.duckdb"
    _, first = run_eval(cli, project, "--run", path, "--k", "1,3", "--db", db)
    bad = worse(path, project)
    gated = cli(
        ["eval", "--run", bad, "--k", "1,3", "--db", db, "--baseline", "db:latest", "--gate", "hit@3"],
        cwd=project,
    )
    assert gated.returncode == 1, gated.stderr
    con = duckdb.connect(str(db), read_only=True)
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert tables == {"runs", "run_metrics", "query_results", "schema_version"}
    assert con.execute("SELECT version FROM schema_version").fetchall() == [(3,)]
    runs = con.execute(
        "SELECT run_id, seq, fingerprint, hit_rule, multi, n_answerable, n_missing, run_format "
        "FROM runs ORDER BY seq"
    ).fetchall()
    assert [r[1] for r in runs] == [1, 2] and runs[0][0] == first["db_run_id"]
    assert runs[0][2] == first["fingerprint"] and runs[0][3:] == ("any_overlap", "any", 7, 1, "trec")
    hit3 = con.execute(
        "SELECT value, ci_low, ci_high, n FROM run_metrics WHERE run_id = ? AND group_by = 'all' "
        "AND metric = 'hit' AND k = 3",
        [runs[0][0]],
    ).fetchone()
    assert hit3[0] == pytest.approx(5 / 7) and hit3[1] <= hit3[0] <= hit3[2] and hit3[3] == 7
    rows = con.execute(
        "SELECT query_id, k, missing, hit, mrr, hop, documents FROM query_results "
        "WHERE run_id = ? ORDER BY query_id, k",
        [runs[0][0]],
    ).fetchall()
    assert len(rows) == 7 * 2
    assert ("q5", 3, False, 1.0, 1.0, "multi", ["guide.md", "faq.md"]) in rows
    assert ("q4", 1, True, 0.0, 0.0, "single", ["faq.md"]) in rows
    by_hop = con.execute(
        "SELECT group_value, n FROM run_metrics WHERE run_id = ? AND group_by = 'hop' AND "
        "metric = 'hit' AND k = 1 ORDER BY group_value",
        [runs[0][0]],
    ).fetchall()
    assert by_hop == [("multi", 1), ("single", 6)]


# --- another chunking --------------------------------------------------------------------------


def test_chunks_file_rederives_bearing_chunks(project, cli):
    guide = (project / "corpus" / "guide.md").read_text(encoding="utf-8")
    faq = (project / "corpus" / "faq.md").read_text(encoding="utf-8")
    tables = guide.index("## Tables")
    # three chunks of guide.md by offsets (one ends mid-list), faq.md as two chunks by text
    cut = guide.index("about nested lists")
    faq_cut = faq.index("How are answers graded?")
    lines = [
        {"chunk_id": "g-head", "doc_id": "guide.md", "char_start": 0, "char_end": tables},
        {"chunk_id": "g-mid", "doc_id": "guide.md", "char_start": tables, "char_end": cut},
        {"chunk_id": "g-tail", "doc_id": "guide.md", "char_start": cut, "char_end": len(guide)},
        {"chunk_id": "f-1", "doc_id": "faq.md", "text": faq[:faq_cut]},
        {"chunk_id": "f-2", "doc_id": "faq.md", "text": faq[faq_cut:]},
    ]
    (project / "mine.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    chunks = [
        (
            x["chunk_id"],
            x["doc_id"],
            x.get("char_start", 0 if x["chunk_id"] == "f-1" else faq_cut),
            x.get("char_end", faq_cut if x["chunk_id"] == "f-1" else len(faq)),
        )
        for x in lines
    ]
    expected = []
    for qid, ss in spans(project).items():
        bearing = {
            cid for cid, doc, lo, hi in chunks for s in ss if s.doc_id == doc and lo < s.end and s.start < hi
        }
        expected.extend(f"{qid} 0 {cid} 1" for cid in sorted(bearing))
    proc = cli(["qrels", "--chunks", "mine.jsonl"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == expected
    assert "q3 0 g-mid 1" in expected and "q3 0 g-tail 1" in expected  # the list item straddles the cut
    contained = cli(["qrels", "--chunks", "mine.jsonl", "--hit-rule", "span_containment"], cwd=project)
    assert "q3 0" not in contained.stdout  # no one chunk contains q3's span any more
    assert "q3: " not in contained.stderr and "1 span without a bearing chunk" in contained.stderr
    # a run over the user's chunk IDs is scored against the re-derived chunks
    run = [{"query_id": "q3", "chunk_ids": ["g-tail", "g-head"]}, {"query_id": "q4", "chunk_ids": ["f-1"]}]
    (project / "mine-run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in run), encoding="utf-8")
    _, out = run_eval(cli, project, "--run", "mine-run.jsonl", "--chunks", "mine.jsonl", "--k", "1,3")
    per = {q["query_id"]: q for q in out["per_query"]}
    assert per["q3"]["recall@1"] == 0.5 and per["q3"]["hit@1"] == 1.0 and per["q4"]["hit@1"] == 1.0
    assert out["chunking"]["name"] == "mine.jsonl" and out["unknown_chunks"] == 0


@pytest.mark.parametrize(
    "line, message",
    [
        (
            {"chunk_id": "a", "doc_id": "faq.md", "text": "no such words here"},
            "text not found in the canonical text",
        ),
        ({"chunk_id": "a", "doc_id": "faq.md", "text": "the"}, "text is ambiguous in faq.md"),
        ({"chunk_id": "a", "doc_id": "nope.md", "char_start": 0, "char_end": 3}, "unknown doc_id 'nope.md'"),
        (
            {"chunk_id": "a", "doc_id": "faq.md", "char_start": 5, "char_end": 5000},
            "is not a non-empty range",
        ),
    ],
)
def test_chunks_file_errors_name_the_line(project, cli, line, message):
    good = {"chunk_id": "ok", "doc_id": "faq.md", "char_start": 0, "char_end": 10}
    (project / "mine.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    proc = cli(["qrels", "--chunks", "mine.jsonl"], cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.startswith("golden-lsp: mine.jsonl:2: ") and message in proc.stderr, proc.stderr


def test_out_never_overwrites_an_input(project, cli):
    before = (project / "questions.jsonl").read_bytes()
    for args in (
        ["qrels", "--out", "questions.jsonl"],
        ["retrieve", "--out", "corpus/faq.md"],
        ["retrieve", "--out", "golden-lsp.toml"],
    ):
        proc = cli(args, cwd=project)
        assert proc.returncode == 2 and "an output never overwrites an input" in proc.stderr, args
    assert (project / "questions.jsonl").read_bytes() == before


def test_user_retriever_function(project, cli):
    c = chunk_ids(project)
    (project / "myretriever.py").write_text(
        f"def search(query, k):\n    return [{c['F']!r}, {c['G1']!r}][:k]\n", encoding="utf-8"
    )
    _code, out = run_eval(cli, project, "--retriever", "myretriever:search", "--k", "1,3")
    per = {q["query_id"]: q for q in out["per_query"]}
    assert per["q4"]["hit@1"] == 1.0 and per["q1"]["mrr@3"] == 0.5 and per["q2"]["hit@3"] == 0.0
    bad = cli(["eval", "--retriever", "myretriever:nothing"], cwd=project)
    assert bad.returncode == 2 and "has no function 'nothing'" in bad.stderr


# --- the example set and the conformance fixture --------------------------------------------------


def test_bm25_curve_on_the_example(cli, tmp_path):
    proc = cli(["eval", str(EXAMPLES), "--retriever", "bm25", "--max-chars", "400"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    curve = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts and parts[0].startswith(("hit@", "recall@")):
            curve[parts[0]] = float(parts[1])
            assert parts[2].startswith("[") and parts[4] == "N=72"
    ks = (1, 3, 5, 10, 20, 50)
    hits = [curve[f"hit@{k}"] for k in ks]
    assert hits == sorted(hits) and 0 < hits[0] < hits[-1] <= 1
    assert all(curve[f"recall@{k}"] <= curve[f"hit@{k}"] + 1e-9 for k in ks)
    assert "hit@1/hit@10 = " in proc.stdout


def test_retrieve_then_eval_equals_eval_retriever(cli, tmp_path):
    out = tmp_path / "bm25.jsonl"
    proc = cli(["retrieve", str(EXAMPLES), "--retriever", "bm25", "--k", "20", "--out", out], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    n_records = sum(
        1 for line in (EXAMPLES / "questions.jsonl").read_text().splitlines() if line.startswith("{")
    )
    assert len(out.read_text().splitlines()) == n_records
    _, from_file = run_eval(cli, tmp_path, str(EXAMPLES), "--run", out, "--k", "1,5,20")
    _, in_one_go = run_eval(cli, tmp_path, str(EXAMPLES), "--retriever", "bm25", "--k", "1,5,20")
    assert [m["value"] for m in from_file["metrics"]] == [m["value"] for m in in_one_go["metrics"]]
    assert from_file["fingerprint"] == in_one_go["fingerprint"]
    trec_out = tmp_path / "bm25.trec"
    assert cli(["retrieve", str(EXAMPLES), "--out", trec_out], cwd=tmp_path).returncode == 0
    first = trec_out.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "golden-lsp-bm25"


def test_conformance_qrels_equal_the_reference_bearing_chunks(conformance, cli, tmp_path):
    proc = cli(
        ["qrels", "--corpus", conformance / "corpus", "--questions", conformance / "questions.jsonl"],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    got: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        q, _, cid, _rel = line.split()
        got.setdefault(q, []).append(cid)
    reference = [
        json.loads(x) for x in (conformance / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert got == {r["query_id"]: r["answer_bearing_chunk_ids"] for r in reference}


def test_conformance_bm25_evaluation(conformance, cli, tmp_path):
    code, out = run_eval(
        cli,
        tmp_path,
        "--corpus",
        conformance / "corpus",
        "--questions",
        conformance / "questions.jsonl",
        "--retriever",
        "bm25",
        "--bootstrap",
        "500",
    )
    assert out["n"] == 60 and out["missing"] == [] and out["chunking"]["chunks"] == 265
    assert {b["value"]: b["n"] for b in out["breakdowns"] if b["by"] == "hop"} == {"multi": 5, "single": 55}
    hits = [metrics(out, "hit", k)["value"] for k in (1, 3, 5, 10, 20, 50)]
    assert hits == sorted(hits) and not [n for n in out["notes"] if n["severity"] == "error"]
    assert code == (1 if any(g["failed"] for g in out["floors"]) else 0)


def test_practice_fields_break_down_and_unanswerable_is_apart(tmp_path, cli):
    lines = []
    for i, line in enumerate(SAMPLE_LINES):
        if line.startswith("{"):
            rec = json.loads(line)
            rec["query_type"] = "factual" if i % 2 else "conceptual"
            rec["split"] = "test" if rec["id"] in ("q1", "q2") else "dev"
            line = json.dumps(rec)
        lines.append(line)
    lines.append(
        json.dumps(
            {
                "id": "q8",
                "query": "What does the corpus say about the weather on Mars?",
                "expected_answer": "Nothing: the corpus does not cover it at all.",
                "locators": [],
                "unanswerable": True,
                "query_type": "factual",
                "split": "dev",
            }
        )
    )
    project = make_project(tmp_path / "p", lines=lines)
    c = chunk_ids(project)
    (project / "run.jsonl").write_text(
        json.dumps({"query_id": "q8", "chunk_ids": [c["F"]]})
        + "\n"
        + json.dumps({"query_id": "q1", "chunk_ids": [c["G1"]]})
        + "\n"
    )
    db = tmp_path / "r.duckdb"
    _, out = run_eval(cli, project, "--run", "run.jsonl", "--k", "1", "--db", db)
    assert out["n"] == 7 and out["unanswerable"] == {"n": 1, "answered_by_run": 1}
    assert "q8" not in [q["query_id"] for q in out["per_query"]] and "q8" not in out["unknown_queries"]
    split = {b["value"]: (b["n"], b["metrics"][0]["value"]) for b in out["breakdowns"] if b["by"] == "split"}
    assert split == {"dev": (5, 0.0), "test": (2, 0.5)}
    assert {b["value"] for b in out["breakdowns"] if b["by"] == "query_type"} == {"factual", "conceptual"}
    row = (
        duckdb.connect(str(db), read_only=True)
        .execute("SELECT query_type, split FROM query_results WHERE query_id = 'q1'")
        .fetchone()
    )
    assert row == (json.loads(lines[1])["query_type"], "test")
    text = cli(["eval", "--run", "run.jsonl", "--k", "1"], cwd=project).stdout
    assert "unanswerable (reported apart, not in N): 1 record; the run returned chunks for 1 of them" in text


def test_ratio_signals_and_the_mrr_equals_hit_flag(crafted, project, cli):
    path, c = crafted
    _, out = run_eval(cli, project, "--run", path, "--k", "1,10,50", "--bootstrap", "200")
    notes = [n["message"] for n in out["notes"]]
    # hit@1 = 2/7, hit@10 = hit@50 = 5/7
    assert any(n.startswith("hit@1/hit@10 = 0.40 < 0.6") and "ranking problem" in n for n in notes)
    assert any(n.startswith("hit@50 = 0.714 ≈ hit@10 = 0.714") and "depth is exhausted" in n for n in notes)
    assert any(
        n.startswith("hit@50 = 0.714 < 0.95") and "candidate generation fails the floor" in n for n in notes
    )
    assert not [n for n in out["notes"] if n["severity"] == "error"]
    (project / "top1.jsonl").write_text(json.dumps({"query_id": "q6", "chunk_ids": [c["F"]]}) + "\n")
    _, top1 = run_eval(cli, project, "--run", "top1.jsonl", "--k", "1,10", "--bootstrap", "200")
    assert any(
        n["message"].startswith("sanity: MRR@10 = hit@1 = 0.143 (N=7, hit rule any_overlap")
        for n in top1["notes"]
    )
    _, few = run_eval(cli, project, "--run", "top1.jsonl", "--k", "1,3", "--bootstrap", "0")
    assert any("ratio signals need k = 1, 10 and 50; missing: 10, 50" in n["message"] for n in few["notes"])


def test_no_answerable_record_is_a_usage_error(tmp_path, cli):
    line = json.dumps(
        {
            "id": "u1",
            "query": "What is not in the corpus at all?",
            "expected_answer": "Nothing at all, the corpus is silent.",
            "locators": [],
            "unanswerable": True,
        }
    )
    project = make_project(tmp_path / "p", lines=[line])
    (project / "run.jsonl").write_text("")
    proc = cli(["eval", "--run", "run.jsonl"], cwd=project)
    assert proc.returncode == 2 and "no answerable record to score (1 unanswerable, 0 excluded" in proc.stderr


def test_a_group_of_fewer_than_five_records_gets_no_interval(crafted, project, cli):
    path, _ = crafted
    _, out = run_eval(cli, project, "--run", path, "--k", "1,3")
    assert out["settings"]["min_interval_n"] == 5
    hop = {b["value"]: b for b in out["breakdowns"] if b["by"] == "hop"}
    assert (hop["multi"]["n"], hop["single"]["n"]) == (1, 6)
    assert all(m["ci"] == [None, None] for m in hop["multi"]["metrics"])  # q5 alone: no interval
    assert all(None not in m["ci"] for m in hop["single"]["metrics"])
    text = cli(["eval", "--run", path, "--k", "1,3"], cwd=project).stdout
    (multi,) = [line for line in text.splitlines() if line.strip().startswith("multi ") and " hit " in line]
    assert multi.endswith("(no interval: N<5)") and "[" not in multi
    assert "no interval for a group of fewer than 5 records" in text
    (single,) = [line for line in text.splitlines() if line.strip().startswith("single ") and " hit " in line]
    assert "[" in single  # six records: an interval


def test_a_set_of_fewer_than_five_records_gets_no_interval(tmp_path, cli):
    root = make_project(tmp_path / "small", lines=SAMPLE_LINES[:4])  # q1..q3
    proc = cli(["eval", "--retriever", "bm25", "--k", "1,3"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "no interval (fewer than 5 records), N=3" in proc.stdout
    assert "(no interval: N<5)  N=3" in proc.stdout and "[1.000, 1.000]" not in proc.stdout
