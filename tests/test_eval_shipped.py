"""``eval --shipped-k``, ``--target-correctness``/``--faithfulness`` and ``--reranks-baseline`` as subprocesses.

The crafted run (tests/test_eval_cli.py) hits 5 of its 7 queries in the top 3, so shipping k=3
leaves 2/7 of the queries unanswerable; every number below is that hand count.
"""

from __future__ import annotations

import json

import pytest
from test_eval_cli import crafted, worse  # noqa: F401  (crafted is a fixture)


def shipped(cli, project, *args) -> tuple[int, dict]:
    proc = cli(["eval", "--format", "json", "--k", "1,3,10", *args], cwd=project)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_ceiling_gap_and_bimodal_at_the_shipped_k(crafted, project, cli):  # noqa: F811
    run, _ = crafted
    _, out = shipped(cli, project, "--run", run, "--shipped-k", "3")
    s = out["shipped"]
    assert s["ceiling"] == pytest.approx(2 / 7) and s["hit"] == pytest.approx(5 / 7)
    assert s["class_c_gap"]["generous_k"] == 10
    recall = {(m["metric"], m["k"]): m["value"] for m in out["metrics"]}
    assert s["class_c_gap"]["value"] == pytest.approx(recall["recall", 10] - recall["recall", 3])
    assert s["bimodal"]["mrr10"] == pytest.approx(recall["mrr", 10]) and s["bands"] is None
    text = cli(["eval", "--run", run, "--k", "1,3,10", "--shipped-k", "3"], cwd=project).stdout
    assert "ship k=3 and 28.6% of queries cannot be answered" in text
    assert "under any_overlap; multi-hop: any span" in text and "starting bands: none" in text
    assert cli(["eval", "--run", run, "--k", "1,3", "--shipped-k", "5"], cwd=project).returncode == 2


def test_shipped_k_from_the_config(crafted, project, cli):  # noqa: F811
    run, _ = crafted
    config = project / "golden-lsp.toml"
    config.write_text(config.read_text() + "\n[eval]\nshipped_k = 3\n")
    _, out = shipped(cli, project, "--run", run)
    assert out["shipped"]["k"] == 3
    config.write_text(config.read_text().replace("shipped_k = 3", "shipped_k = 0"))
    bad = cli(["eval", "--run", run], cwd=project)
    assert bad.returncode == 2 and "shipped_k" in bad.stderr


def test_starting_bands_from_the_config(crafted, project, cli):  # noqa: F811
    """A team's own band tables ([eval.bands]) read at the shipped k: hit@3 = 5/7 = 0.714 falls in
    the band from 0.7; a table for an unevaluated k is said so; bad tables are refused (exit 2)."""
    run, _ = crafted
    config = project / "golden-lsp.toml"
    plain = config.read_text()
    config.write_text(
        plain
        + '\n[eval]\nshipped_k = 3\n[eval.bands]\n"hit@3" = [[0.0, "poor"], [0.7, "fair"], [0.9, "good"]]\n'
        + '"mrr@50" = [[0.0, "any"]]\n'
    )
    _, out = shipped(cli, project, "--run", run)
    [band] = out["shipped"]["bands"]
    assert (band["metric"], band["k"], band["band"], band["lower_bound"]) == ("hit", 3, "fair", 0.7)
    assert band["value"] == pytest.approx(5 / 7)
    text = cli(["eval", "--run", run, "--k", "1,3,10"], cwd=project).stdout
    assert "hit@3 0.714 → fair (≥ 0.7)" in text and "mrr@50 not evaluated (add 50 to --k)" in text
    assert "not acceptance criteria" in text
    for table, said in (
        ('"hit@3" = [[0.5, "a"], [0.2, "b"]]', "ascending"),
        ('"hit@3" = [[1.5, "a"]]', "lower bound in 0..1"),
        ('"hit3" = [[0.1, "a"]]', "METRIC@K"),
        ('"nope@3" = [[0.1, "a"]]', "no metric 'nope'"),
        ('"hit@3" = [[0.1, "a\\u001b[2J"]]', "printable"),
    ):
        config.write_text(plain + f"\n[eval]\nshipped_k = 3\n[eval.bands]\n{table}\n")
        bad = cli(["eval", "--run", run, "--k", "1,3,10"], cwd=project)
        assert bad.returncode == 2 and said in bad.stderr, bad.stderr


def test_required_recall_and_its_verdict(crafted, project, cli, tmp_path):  # noqa: F811
    run, _ = crafted
    base = ("--run", run, "--shipped-k", "3", "--target-correctness")
    _, ok = shipped(cli, project, *base, "0.6", "--faithfulness", "0.9")
    assert ok["shipped"]["required"]["required_recall"] == pytest.approx(0.6 / 0.9)
    assert ok["shipped"]["required"]["achievable"] is True
    oracle = tmp_path / "oracle.json"
    oracle.write_text(
        json.dumps({"faithfulness": {"value": 0.9, "n": 40, "low": 0.8, "high": 0.96, "judge": "x"}})
    )
    _, short = shipped(cli, project, *base, "0.7", "--faithfulness", oracle)
    req = short["shipped"]["required"]
    assert req["required_recall"] == pytest.approx(0.7 / 0.9) and req["achievable"] is False
    assert req["faithfulness"]["n"] == 40 and "below the required recall" in req["verdict"]
    _, over = shipped(cli, project, *base, "0.95", "--faithfulness", "0.9")
    assert "even perfect retrieval" in over["shipped"]["required"]["verdict"]
    oracle.write_text(json.dumps({"faithfulness": 0.9}))
    bad = cli(["eval", *base, "0.7", "--faithfulness", oracle], cwd=project)
    assert bad.returncode == 2 and '{"faithfulness": {"value": F' in bad.stderr
    assert cli(["eval", *base, "0.7"], cwd=project).returncode == 2


def test_a_reranker_cannot_raise_recall_at_its_depth(crafted, project, cli):  # noqa: F811
    run, _ = crafted
    # the crafted run's top 3 of every query, reversed: a reranking of the crafted run's candidates
    rows = [ln.split() for ln in run.read_text().splitlines()]
    reranked = project / "reranked.trec"
    by_query: dict[str, list] = {}
    for r in rows:
        by_query.setdefault(r[0], []).append(r)
    reranked.write_text(
        "".join(
            f"{q} Q0 {r[2]} {i} {10 - i} rr\n"
            for q, rs in by_query.items()
            for i, r in enumerate(reversed(rs[:3]), 1)
        )
    )
    ok = cli(
        ["eval", "--run", reranked, "--compare", run, "--k", "3", "--reranks-baseline", "3"], cwd=project
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "reranking check: recall@3" in ok.stdout and "consistent" in ok.stdout
    # the crafted run is no reranking of the worse run: it raised recall@3
    bad_baseline = worse(run, project)
    code, out = shipped(cli, project, "--run", run, "--compare", bad_baseline, "--reranks-baseline", "3")
    assert code == 1 and out["reranks_baseline"]["failed"] and "q1" in out["reranks_baseline"]["raised"]
    assert cli(["eval", "--run", run, "--reranks-baseline", "3"], cwd=project).returncode == 2
