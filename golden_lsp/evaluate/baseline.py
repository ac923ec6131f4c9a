"""The guide's regression check: a small baseline file of metric values and a fixed maximum drop.

The lab's gate (``eval --gate``) compares against a baseline *run* with a paired bootstrap
interval, which knows how many records the numbers rest on. The golden-dataset guide's CI check
is simpler and what many teams commit: a file of ``metric@k → value`` and a fixed threshold
(0.02), failing when any metric drops by more, printed as "metric: baseline → new (drop: d)".
This module writes that file (with the set's fingerprint, hit rule and multi-hop rule, so that a
file from another set or rule is refused) and checks an evaluation against it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.goldenset.config import ConfigError
from ..core.io.files import write_atomically
from ..core.io.jsontext import dumps
from .evalspec import METRICS, MISSES
from .evaluation import Evaluation

FORMAT = "golden-lsp-baseline"
VERSION = 1
#: the guide's threshold, when --max-drop is not given
DEFAULT_MAX_DROP = 0.02
#: the longest text of a baseline file the output repeats
_MAX_SHOWN = 200
#: float noise under which a drop equal to the threshold is not "more than" it
_EPS = 1e-12


def baseline_of(ev: Evaluation) -> dict:
    """The baseline file's content: every metric@k's mean, with what makes it comparable."""
    tg, st = ev.targets, ev.settings
    return {
        "format": FORMAT,
        "version": VERSION,
        "fingerprint": tg.fingerprint,
        "hit_rule": str(tg.hit_rule),
        "multi": st.multi,
        "misses": MISSES,
        "n": ev.n,
        "run": ev.run.name,
        "metrics": {f"{m}@{k}": ev.value(m, k) for m in METRICS for k in st.ks},
    }


def write_baseline(ev: Evaluation, path: Path) -> None:
    write_atomically({path: dumps(baseline_of(ev), indent=2) + "\n"})


def read_baseline(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the baseline file ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: not a baseline file (invalid JSON: {e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(f"{path}: not a baseline file (written by eval --write-baseline)")
    metrics = data.get("metrics")
    if (
        not isinstance(metrics, dict)
        or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            for v in metrics.values()
        )
        or not all(isinstance(data.get(f), str) for f in ("fingerprint", "hit_rule", "multi"))
    ):
        raise ConfigError(
            f"{path}: a baseline file needs fingerprint, hit_rule, multi and finite numeric metrics"
        )
    # the file is untrusted: what the output repeats of it is short and printable, names are metric@k
    shown = [data[f] for f in ("fingerprint", "hit_rule", "multi")] + [str(data.get("run", ""))]
    if any(len(t) > _MAX_SHOWN or not t.isprintable() for t in shown):
        raise ConfigError(
            f"{path}: a baseline file's fingerprint, rules and run name are short printable text"
        )
    bad = next((name for name in metrics if not re.fullmatch(r"[a-z_]+@[0-9]{1,7}", name)), None)
    if bad is not None:
        raise ConfigError(f"{path}: {bad[:_MAX_SHOWN]!r} is not a METRIC@K name")
    return data


def parse_max_drops(specs: list[str]) -> tuple[float, dict[str, float]]:
    """``--max-drop 0.02`` (every metric) and ``--max-drop hit@1=0.03`` (one) → (default, per metric)."""
    default, per = DEFAULT_MAX_DROP, {}
    for spec in specs:
        at, sep, value = spec.rpartition("=")
        try:
            drop = float(value)
        except ValueError:
            drop = math.nan
        if math.isnan(drop) or drop < 0 or (sep and "@" not in at):
            raise ConfigError(f"--max-drop {spec!r}: expected a number ≥ 0, or METRIC@K=NUMBER")
        if sep:
            per[at] = drop
        else:
            default = drop
    return default, per


@dataclass(frozen=True)
class Drop:
    name: str  # metric@k
    baseline: float
    new: float
    max_drop: float

    @property
    def drop(self) -> float:
        return self.baseline - self.new

    def line(self) -> str:
        return f"{self.name}: {self.baseline:.4f} → {self.new:.4f} (drop: {self.drop:.4f})"


@dataclass(frozen=True)
class BaselineCheck:
    path: Path
    data: dict
    default: float
    checked: list[Drop]
    #: metric@k of the baseline that this evaluation did not compute (other --k)
    not_evaluated: list[str]
    other_set: bool

    @property
    def drops(self) -> list[Drop]:
        return [d for d in self.checked if d.drop > d.max_drop + _EPS]

    def text(self) -> list[str]:
        out = [
            f"baseline file {self.path} (run {self.data.get('run')}, N={self.data.get('n')}, hit rule "
            f"{self.data['hit_rule']}, multi {self.data['multi']}): {len(self.checked)} metric values "
            f"checked against a fixed maximum drop of {self.default}"
            + (
                " (per-metric thresholds given)"
                if any(d.max_drop != self.default for d in self.checked)
                else ""
            )
            + "; a fixed threshold ignores N (use --gate for an interval)"
        ]
        if self.other_set:
            out.append(
                "  another set or rule allowed (--allow-other-baseline): the values are not comparable"
            )
        if self.not_evaluated:
            out.append(f"  not checked (not evaluated at this --k): {', '.join(self.not_evaluated)}")
        out.extend(f"  {d.line()}" for d in self.drops)
        out.append(f"  FAIL: {len(self.drops)} dropped more than allowed" if self.drops else "  pass")
        return out

    def json(self) -> dict:
        return {
            "path": str(self.path),
            "fingerprint": self.data["fingerprint"],
            "hit_rule": self.data["hit_rule"],
            "multi": self.data["multi"],
            "n": self.data.get("n"),
            "max_drop": self.default,
            "other_set_allowed": self.other_set,
            "not_evaluated": self.not_evaluated,
            "checked": [
                {
                    "metric": d.name,
                    "baseline": d.baseline,
                    "new": d.new,
                    "drop": d.drop,
                    "max_drop": d.max_drop,
                }
                for d in self.checked
            ],
            "drops": [d.name for d in self.drops],
            "failed": bool(self.drops),
        }


def check_baseline(
    ev: Evaluation, path: Path, max_drops: list[str], allow_other: bool = False
) -> BaselineCheck:
    """Every metric@k of the baseline file that ``ev`` evaluated, against its maximum drop."""
    data = read_baseline(path)
    ours = baseline_of(ev)
    differs = [f for f in ("fingerprint", "hit_rule", "multi") if data[f] != ours[f]]
    if differs and not allow_other:
        detail = ", ".join(f"{f} {data[f]} (now {ours[f]})" for f in differs)
        raise ConfigError(
            f"refusing the baseline file {path}: it was written for another set or rule ({detail}); "
            "pass --allow-other-baseline to check against it anyway"
        )
    default, per = parse_max_drops(max_drops)
    unknown = sorted(set(per) - set(data["metrics"]))
    if unknown:
        raise ConfigError(f"--max-drop {unknown[0]}: the baseline file {path} has no such metric@k")
    checked, not_evaluated = [], []
    for name, value in data["metrics"].items():
        if name not in ours["metrics"]:
            not_evaluated.append(name)
            continue
        checked.append(Drop(name, float(value), ours["metrics"][name], per.get(name, default)))
    return BaselineCheck(path, data, default, checked, not_evaluated, bool(differs))
