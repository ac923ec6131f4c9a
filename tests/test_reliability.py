"""Agreement of two or more annotators: Krippendorff's alpha against the ``krippendorff`` package on
random designs (missing values included), Fleiss' kappa through its identity with alpha on complete
data and a hand-computed case, and ``agree`` over three files as a subprocess, its figures checked
against the package on the very item matrix the files make, kept as ``agreement.json``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from core_support import loc, make_project, qline

from golden_lsp.practice.reliability import Unit, fleiss_kappa, krippendorff_alpha

krippendorff = pytest.importorskip("krippendorff")


def _matrix(units: list[Unit], raters: list[list[int]], n_raters: int) -> np.ndarray:
    """The reliability matrix (raters × items, nan where a rater did not rate) that ``units`` stand
    for: each unit's relevant votes given to its first raters, its other chunks all zero."""
    columns = []
    for unit, who in zip(units, raters):
        for chunk in range(unit.n_chunks):
            col = np.full(n_raters, np.nan)
            ones = unit.relevant[chunk] if chunk < len(unit.relevant) else 0
            for k, r in enumerate(who):
                col[r] = 1.0 if k < ones else 0.0
            columns.append(col)
    return np.array(columns).T


def _random_design(rng: random.Random, n_raters: int, complete: bool):
    units, raters = [], []
    for _ in range(rng.randint(2, 12)):
        who = list(range(n_raters)) if complete else rng.sample(range(n_raters), rng.randint(2, n_raters))
        n_chunks = rng.randint(1, 9)
        relevant = tuple(rng.randint(0, len(who)) for _ in range(rng.randint(0, n_chunks)))
        units.append(Unit(len(who), n_chunks, tuple(v for v in relevant if v)))
        raters.append(who)
    return units, raters


def test_alpha_matches_the_krippendorff_package_with_missing_values():
    rng = random.Random(3)
    checked = 0
    for _ in range(300):
        n_raters = rng.randint(2, 5)
        units, raters = _random_design(rng, n_raters, complete=False)
        ours = krippendorff_alpha(units)
        data = _matrix(units, raters, n_raters)
        if len(np.unique(data[~np.isnan(data)])) < 2:
            assert ours is None  # one value throughout: undefined, where the package divides by zero
            continue
        assert ours == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12
        )
        checked += 1
    assert checked > 200


def test_fleiss_kappa_by_its_identity_with_alpha_on_complete_data():
    """With every item rated by all m raters (n = N·m values), 1 − α = (1 − κ_Fleiss)·(n − 1)/n."""
    rng = random.Random(11)
    checked = 0
    for _ in range(200):
        n_raters = rng.randint(2, 5)
        units, raters = _random_design(rng, n_raters, complete=True)
        kappa = fleiss_kappa(units)
        data = _matrix(units, raters, n_raters)
        if kappa is None:
            continue
        n = data.size
        alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert 1 - alpha == pytest.approx((1 - kappa) * (n - 1) / n, abs=1e-12)
        checked += 1
    assert checked > 150


def test_fleiss_kappa_hand_computed():
    # 3 raters, 4 items: relevant votes 3, 2, 0, 0 (one unit of 4 chunks).
    # P_i: 1, 1/3, 1, 1 → P̄ = 5/6; p1 = 5/12 → P_e = (5/12)² + (7/12)² = 74/144;
    # κ = (5/6 − 74/144) / (1 − 74/144) = (120 − 74) / (144 − 74) = 46/70
    assert fleiss_kappa([Unit(3, 4, (3, 2))]) == pytest.approx(46 / 70, rel=1e-12)
    assert fleiss_kappa([Unit(2, 4, ()), Unit(3, 4, (1,))]) is None  # not the same raters per item


PARAS = [
    f"Paragraph {i} is about topic number {i} and nothing else at all, said at length." for i in range(6)
]
CORPUS = {"d.md": "# Topics\n\n" + "\n\n".join(PARAS) + "\n"}


def _q(i: int) -> dict:
    return loc("d.md", f"Paragraph {i} is about")


def test_agree_over_three_files_matches_the_package_on_the_files_item_matrix(tmp_path, cli):
    labels = {  # record → each annotator's paragraphs (None: the annotator did not label it)
        "r1": ([1], [1], [1]),
        "r2": ([2], [3], [2]),
        "r3": ([4], [4, 5], None),
        "r4": (None, [0], [0]),
        "r5": ([5], None, None),
    }
    root = make_project(tmp_path / "p", CORPUS, [], config='corpus = "corpus"\nmax_chars = 90\n')
    files = []
    for k, name in enumerate(("alice", "bob", "carol")):
        lines = [
            qline(rid, [_q(i) for i in paras[k]], hop="multi" if len(paras[k]) > 1 else None)
            for rid, paras in labels.items()
            if paras[k] is not None
        ]
        path = root / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(path)
    proc = cli(["agree", "--format", "json", *files])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    n_chunks = 6  # one chunk per paragraph at max_chars 90
    columns = []
    for paras in labels.values():
        if sum(p is not None for p in paras) < 2:
            continue
        for chunk in range(n_chunks):
            columns.append([np.nan if p is None else float(chunk in p) for p in paras])
    data = np.array(columns).T
    assert got["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12
    )
    assert got["annotators"] == ["alice", "bob", "carol"]
    assert (got["n_records"], got["n_records_all"], got["n_items"]) == (4, 2, 4 * n_chunks)
    assert got["single"] == {"alice": ["r5"], "bob": [], "carol": []}
    pairs = {(p["a"], p["b"]): p for p in got["pairwise"]}
    assert pairs["alice", "carol"]["n_records"] == 2 and pairs["alice", "carol"]["kappa"] == 1.0
    assert pairs["alice", "bob"]["n_records"] == 3 and pairs["alice", "bob"]["kappa"] < 1
    assert [r["id"] for r in got["records"] if r["disagree"]] == ["r2", "r3"]
    full = data[:, : 2 * n_chunks]  # r1 and r2: rated by all three
    alpha_full = krippendorff.alpha(reliability_data=full, level_of_measurement="nominal")
    assert 1 - alpha_full == pytest.approx((1 - got["fleiss_kappa"]) * (full.size - 1) / full.size)
    kept = json.loads((root / "agreement.json").read_text(encoding="utf-8"))
    assert kept["alpha"] == got["alpha"] and kept["annotators"] == ["alice", "bob", "carol"]
    assert kept["n_records"] == 4 and kept["kappa"] is None
    text = cli(["agree", "--no-save", *files]).stdout
    assert "Krippendorff's alpha" in text and "Fleiss' kappa" in text and "alice – bob: Cohen's kappa" in text
    assert "r2  alice, bob, carol" in text and "only alice (1): r5" in text


def test_agree_needs_two_files_and_distinct_names(tmp_path, cli):
    root = make_project(tmp_path / "p", CORPUS, [qline("r1", [_q(1)])], config='corpus = "corpus"\n')
    one = cli(["agree", root / "questions.jsonl"])
    assert one.returncode == 2 and "two or more" in one.stderr
    same = cli(["agree", "--names", "x,x", root / "questions.jsonl", root / "questions.jsonl"])
    assert same.returncode == 2 and "--names" in same.stderr
