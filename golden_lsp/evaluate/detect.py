"""The effect the gate can detect: its minimum detectable effect at N, and the N a given delta needs.

"Size is set by the effect you need to detect": the gate (``eval --gate``) fails when a metric
dropped and the 95 % paired bootstrap interval of the delta excludes zero, so a two-sided test at
α = 0.05. Its minimum detectable effect at power 1 − β is MDE = (z₁₋α/₂ + z₁₋β) · SE, the
standard error SE of the mean delta; and the N that detects a delta δ is (z₁₋α/₂ + z₁₋β)² σ² / δ²
with σ = SE·√N the per-query spread of the delta. SE is taken from the source at hand, said in
``method``: the paired bootstrap interval of a run against a baseline run (the gate's own
interval, SE = its width / (2 z₀.₉₇₅)); one run's bootstrap interval, times √2 for two runs with
that spread disagreeing as independent runs would (pairing can only narrow it when the runs agree
query by query); without a run, the worst case of any metric in [0, 1] (variance at most 1/4,
a Bernoulli at p = 0.5), SE = √(2 · 0.25 / N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..core.goldenset.config import ConfigError
from .evaluation import Comparison
from .metrics import bootstrap

#: the gate's level: its 95 % interval is a two-sided test at α = 0.05
ALPHA = 0.05
DEFAULT_POWER = 0.8
DEFAULT_DELTA = 0.02
#: the largest variance of a value in [0, 1] (a Bernoulli at p = 0.5)
WORST_VARIANCE = 0.25
_Z_INTERVAL = NormalDist().inv_cdf(1 - ALPHA / 2)

WORST_CASE = (
    "binomial worst case: no run given, every metric in [0, 1] has variance at most 1/4 (p = 0.5); "
    "two independent measurements, SE = sqrt(2 * 0.25 / N)"
)
ONE_RUN = (
    "one run: SE of its mean from the 95 % bootstrap interval (SE = width / 3.92), times sqrt(2) "
    "for two runs with this spread disagreeing as independent runs (pairing narrows it when runs agree)"
)
PAIRED = (
    "paired bootstrap: SE of the mean delta from the gate's own 95 % paired bootstrap interval (width / 3.92)"
)


def z_total(power: float) -> float:
    """z₁₋α/₂ + z_power: the MDE in standard errors."""
    return _Z_INTERVAL + NormalDist().inv_cdf(power)


@dataclass(frozen=True)
class Detectable:
    """What the gate can detect, per metric and k (arrays shaped like one evaluation's means)."""

    method: str
    n: int
    power: float
    delta: float
    #: the standard error of the mean delta; NaN where the source has no spread (or no interval)
    se: np.ndarray

    @property
    def mde(self) -> np.ndarray:
        return z_total(self.power) * self.se

    @property
    def n_needed(self) -> np.ndarray:
        """The N at which ``delta`` is the MDE (NaN where SE is)."""
        sigma = self.se * math.sqrt(self.n)
        with np.errstate(invalid="ignore"):
            return np.ceil((z_total(self.power) * sigma / self.delta) ** 2)


def _check(power: float, delta: float) -> None:
    if not 0.5 <= power < 1:
        raise ConfigError(f"--power {power}: expected at least 0.5 and below 1")
    if not 0 < delta <= 1:
        raise ConfigError(f"--delta {delta}: expected above 0 and at most 1")


def worst_case(n: int, shape: tuple[int, ...], power: float, delta: float) -> Detectable:
    _check(power, delta)
    se = math.sqrt(2 * WORST_VARIANCE / n) if n else math.nan
    return Detectable(WORST_CASE, n, power, delta, np.full(shape, se))


def _se(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    lo, hi = bootstrap(values, resamples, seed)
    se = (hi - lo) / (2 * _Z_INTERVAL)
    return np.where(se > 0, se, np.nan)  # no spread: the normal approximation says nothing


def from_run(values: np.ndarray, resamples: int, seed: int, power: float, delta: float) -> Detectable:
    """From one run's per-query values (N, metrics, ks)."""
    _check(power, delta)
    return Detectable(ONE_RUN, values.shape[0], power, delta, math.sqrt(2) * _se(values, resamples, seed))


def from_pair(deltas: np.ndarray, resamples: int, seed: int, power: float, delta: float) -> Detectable:
    """From the paired per-query deltas of a run and its baseline run (N, metrics, ks)."""
    _check(power, delta)
    return Detectable(PAIRED, deltas.shape[0], power, delta, _se(deltas, resamples, seed))


def paired_deltas(cmp: Comparison) -> np.ndarray:
    """The per-query deltas a − b of a comparison, over the queries it paired."""
    ia = {q: i for i, q in enumerate(cmp.a.query_ids)}
    ib = {q: i for i, q in enumerate(cmp.b.query_ids)}
    rows_a = np.asarray([ia[q] for q in cmp.query_ids], dtype=int)
    rows_b = np.asarray([ib[q] for q in cmp.query_ids], dtype=int)
    return cmp.a.values[rows_a] - cmp.b.values[rows_b]
