"""``golden-lsp power``: the gate's minimum detectable effect, checked by simulation and as a subprocess.

The simulations plant an effect of exactly the stated MDE and apply the gate's own rule (the
mean delta is negative and the upper end of its 95 % bootstrap interval is below zero) to
``TRIALS`` seeded samples: the detection rate must be the stated power (0.8) within 0.07. The
tolerance: 3 binomial standard deviations of a rate over 400 trials (3 · √(0.8 · 0.2 / 400) =
0.06), plus 0.01 for the normal approximation of the percentile bootstrap at N = 400.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from test_eval_cli import crafted, worse  # noqa: F401  (crafted is a fixture)

from golden_lsp.evaluate import detect
from golden_lsp.evaluate.metrics import bootstrap

N, TRIALS, RESAMPLES = 400, 400, 1000
TOLERANCE = 0.07


def detected(deltas: np.ndarray, seed: int) -> bool:
    _, hi = bootstrap(deltas[:, None], RESAMPLES, seed)
    return bool(deltas.mean() < 0 and hi[0] < 0)


def rate(draw) -> float:
    rng = np.random.default_rng(7)
    return sum(detected(draw(rng), t) for t in range(TRIALS)) / TRIALS


def test_worst_case_mde_is_detected_at_the_stated_power():
    mde = float(detect.worst_case(N, (1,), 0.8, 0.02).mde[0])
    # two independent runs of a hit rate at p = 0.5, the second worse by the MDE
    measured = rate(lambda rng: rng.binomial(1, 0.5 - mde, N) - rng.binomial(1, 0.5, N).astype(float))
    assert measured == pytest.approx(0.8, abs=TOLERANCE), measured


def test_paired_mde_is_detected_at_the_stated_power():
    # two runs that disagree on 30 % of the queries: deltas in {-1, 0, +1}; the pilot holds the
    # population's exact shares, so the MDE's error is the bootstrap's alone, not a pilot's luck
    pilot = np.repeat([-1.0, 0.0, 1.0], [N * 15 // 100, N * 70 // 100, N * 15 // 100])
    mde = float(detect.from_pair(pilot[:, None], 4000, 0, 0.8, 0.02).mde[0])
    assert mde == pytest.approx(2.8016 * 0.3**0.5 / N**0.5, rel=0.05)  # (z.975 + z.8) σ / √N

    def draw(rng):
        a = 0.15 + mde / 2
        return rng.choice((-1.0, 0.0, 1.0), p=(a, 1 - a - (0.15 - mde / 2), 0.15 - mde / 2), size=N)

    measured = rate(draw)
    assert measured == pytest.approx(0.8, abs=TOLERANCE), measured


def test_n_needed_makes_the_delta_the_mde():
    det = detect.worst_case(N, (1,), 0.8, 0.05)
    needed = int(det.n_needed[0])
    assert float(detect.worst_case(needed, (1,), 0.8, 0.05).mde[0]) <= 0.05
    assert float(detect.worst_case(needed - 1, (1,), 0.8, 0.05).mde[0]) > 0.05


def test_power_from_a_run_and_from_a_pair_of_runs(crafted, project, cli):  # noqa: F811
    run, _ = crafted
    bad = worse(run, project)
    one = json.loads(cli(["power", "--format", "json", "--k", "1,3", "--run", run], cwd=project).stdout)
    pair = json.loads(
        cli(["power", "--format", "json", "--k", "1,3", "--run", run, "--baseline", bad], cwd=project).stdout
    )
    assert one["method"].startswith("one run") and pair["method"].startswith("paired bootstrap")
    assert one["n"] == pair["n"] == 7
    hit3 = next(c for c in pair["metrics"] if c["metric"] == "hit" and c["k"] == 3)
    assert hit3["mde"] == pytest.approx(hit3["se"] * (1.959963984540054 + 0.8416212335729143))
    assert hit3["n_needed"] == math.ceil((hit3["mde"] * 7**0.5 / 0.02) ** 2)


def test_power_command(project, cli):
    worst = cli(["power", "--format", "json", "--k", "1,3"], cwd=project)
    assert worst.returncode == 0, worst.stderr
    out = json.loads(worst.stdout)
    assert out["method"].startswith("binomial worst case") and out["alpha"] == 0.05 and out["power"] == 0.8
    n = out["n"]
    cell = out["metrics"][0]
    assert cell["mde"] == pytest.approx((1.959963984540054 + 0.8416212335729143) * (0.5 / n) ** 0.5)
    text = cli(["power", "--delta", "0.05", "--power", "0.9"], cwd=project)
    assert text.returncode == 0 and "α = 0.05 two-sided" in text.stdout and "power 0.9" in text.stdout
    assert "every metric@k" in text.stdout and "N for Δ=0.05" in text.stdout
    assert cli(["power", "--power", "1.5"], cwd=project).returncode == 2
    assert cli(["power", "--baseline", "x.trec"], cwd=project).returncode == 2
