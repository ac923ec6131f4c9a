"""Helpers for the export and import tests: the example set copied with practice fields, built,
and what its artifact (the oracle every format is compared with) says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from core_support import run_cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
UNANSWERABLE_QUERY = "Which hut on the tour serves sushi for dinner?"


def example_set(root: Path) -> Path:
    """The example set under ``root``, with splits on every record, a primary locator (on the
    first multi-hop record unless the example has one) and an unanswerable record; built, so its
    artifact is fresh."""
    shutil.copytree(EXAMPLES, root)
    path = root / "questions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    out, n = [], 0
    primary_done = any('"primary": true' in line for line in lines)  # the example may have one already
    for line in lines:
        if line.startswith("{"):
            rec = json.loads(line)
            rec["split"] = ("dev", "test", "canary")[n % 3]
            rec["query_type"] = "multi-hop" if rec.get("hop") == "multi" else "factual"
            if rec.get("hop") == "multi" and not primary_done:
                rec["locators"][1]["primary"] = primary_done = True
            line = json.dumps(rec, ensure_ascii=False)
            n += 1
        out.append(line)
    out.append(
        json.dumps(
            {
                "id": "ex999",
                "query": UNANSWERABLE_QUERY,
                "expected_answer": "The corpus does not say: no hut in it serves sushi.",
                "locators": [],
                "unanswerable": True,
                "split": "test",
                "query_type": "unanswerable",
            },
            ensure_ascii=False,
        )
    )
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    proc = run_cli(["build"], root)
    assert proc.returncode == 0, proc.stderr
    return root


def artifact(root: Path) -> list[dict]:
    return [
        json.loads(line) for line in (root / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def expected_chunk_ids(root: Path, split: str | None = None) -> dict[str, set[str]]:
    """query_id → answer-bearing chunk IDs of every answerable record (of ``split``)."""
    return {
        r["query_id"]: set(r["answer_bearing_chunk_ids"])
        for r in artifact(root)
        if r["answer_bearing_chunk_ids"] and (split is None or r.get("split") == split)
    }


def expected_queries(root: Path) -> dict[str, str]:
    return {r["query_id"]: r["query"] for r in artifact(root)}


def expected_spans(root: Path) -> dict[str, list[tuple]]:
    """query → its answer spans (doc, start, end), sorted."""
    return {
        r["query"]: sorted((s["doc_id"], s["char_start"], s["char_end"]) for s in r["answer_spans"])
        for r in artifact(root)
    }


def n_unanswerable(root: Path) -> int:
    return sum(1 for r in artifact(root) if r.get("unanswerable"))
