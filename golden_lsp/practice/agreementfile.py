"""The set's last agreement figure, kept beside it, and the line that prints it beside a metric.

The lab asks that inter-annotator agreement be "reported alongside every metric": no recall is
more trustworthy than the labels it is measured against. ``golden-lsp agree`` therefore writes
what it measured as ``agreement.json`` beside the set's questions file (as ``judge --audit``
writes ``audit.json`` beside the proposals), and ``eval`` and the report read it from there and
print it next to their numbers, with its date and the files it compared — never recomputed, since
the annotators' files need not be at hand where the set is evaluated.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..core.goldenset.config import Config
from ..core.io.files import display, read_regular

AGREEMENT_NAME = "agreement.json"
FORMAT = "golden-lsp agreement v1"
REMINDER = "no metric is more trustworthy than the labels it is measured against"


def agreement_path(config: Config) -> Path:
    """Where ``agree`` keeps the set's figure: beside its questions file."""
    return config.questions_path().parent / AGREEMENT_NAME


def stored(result: dict[str, Any], files: list[Path], hit_rule: str, now: datetime | None = None) -> str:
    """The text of ``agreement.json`` for one run of ``agree`` (its headline figures only)."""
    two = len(files) == 2
    doc = {
        "format": FORMAT,
        "measured_at": (now or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
        "files": [display(p) for p in files],
        "annotators": result["annotators"],
        "hit_rule": hit_rule,
        # Krippendorff's alpha is the headline for any number of annotators; two also get Cohen's kappa
        "measure": "krippendorff_alpha",
        "alpha": result["alpha"],
        "band": result["alpha_band"],
        "alpha_ci95": result["alpha_ci95"],
        "kappa": result["kappa"] if two else None,
        "fleiss_kappa": result["fleiss_kappa"],
        "span_f1": result["span_f1"],
        "n_records": result["n_records"],
    }
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def load(config: Config) -> dict[str, Any] | None:
    """The set's stored figure; None when ``agree`` never ran over it; ``{"error": …}`` when the file
    is there but unreadable, so a report says so instead of hiding it."""
    path = agreement_path(config)
    if not path.exists():
        return None
    try:
        doc = json.loads(read_regular(path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return {"error": f"{display(path)} cannot be read ({exc})"}
    if not _valid(doc):
        return {"error": f"{display(path)} is not an agreement file of golden-lsp agree"}
    return doc


def _valid(doc: Any) -> bool:
    """The shape ``stored`` writes: what is printed from it is a number, a band or a date, never
    text someone put there for a terminal or a page."""
    numbers = ("alpha", "kappa", "fleiss_kappa", "span_f1")
    return (
        isinstance(doc, dict)
        and doc.get("format") == FORMAT
        and all(doc.get(k) is None or _number(doc[k]) for k in numbers)
        and doc.get("band") in ("good", "acceptable", "poor", "undefined")
        and isinstance(doc.get("n_records"), int)
        and isinstance(doc.get("annotators"), list)
        and isinstance(doc.get("measured_at"), str)
        and re.fullmatch(r"\d{4}-\d{2}-\d{2}", doc["measured_at"][:10]) is not None
    )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _figure(value: Any) -> str:
    return f"{value:.3f}" if _number(value) else "undefined"


def line(doc: dict[str, Any] | None) -> str:
    """The one line printed beside the metrics (``eval``, the report)."""
    if doc is None:
        return f"labels: no agreement measured (run golden-lsp agree over two annotators' files); {REMINDER}"
    if "error" in doc:
        return f"labels: {doc['error']}"
    kappa = f", Cohen's kappa {_figure(doc['kappa'])}" if doc.get("kappa") is not None else ""
    f1 = f", span F1 {_figure(doc['span_f1'])}" if doc.get("span_f1") is not None else ""
    return (
        f"labels: Krippendorff's alpha {_figure(doc['alpha'])} ({doc['band']}){kappa}{f1} over "
        f"{doc['n_records']} records labelled by {len(doc['annotators'])} annotators "
        f"(golden-lsp agree, {str(doc['measured_at'])[:10]}); {REMINDER}"
    )


def for_evaluation(config: Config) -> dict[str, Any]:
    """What ``eval`` adds to its JSON: the stored figure (or null) and the line its text prints."""
    doc = load(config)
    return {"agreement": doc, "agreement_line": line(doc)}
