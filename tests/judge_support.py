"""A deterministic judge program for the ``command`` provider, written into each test's folder.

It answers from a table the test writes (``verdicts.json``: record id → passage substring →
judgment, or a string to answer verbatim, e.g. something that is not JSON; ``"EXIT"`` makes it
die), a passage matching no entry being "not relevant, high"; and it logs every request it gets
(one JSON line each), so a test counts the calls and reads what was asked."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

JUDGE = r"""
import json, sys

verdicts = json.load(open(sys.argv[1], encoding="utf-8"))
log = open(sys.argv[2], "a", encoding="utf-8")
for line in sys.stdin:
    request = json.loads(line)
    log.write(line)
    log.flush()
    verdict = {"relevant": False, "confidence": "high", "reason": "It is about something else."}
    for needle, said in verdicts.get(request["record"], {}).items():
        if needle in request["passage"]:
            verdict = said
            break
    if verdict == "EXIT":
        sys.exit(3)
    print(verdict if isinstance(verdict, str) else json.dumps(verdict), flush=True)
"""

NOT_RELEVANT = {"relevant": False, "confidence": "high", "reason": "It is about something else."}


def verdict(relevant: bool, confidence: str, reason: str) -> dict:
    return {"relevant": relevant, "confidence": confidence, "reason": reason}


def write_judge(folder: Path, verdicts: dict[str, dict]) -> tuple[str, Path]:
    """The judge program and its table under ``folder``: the ``--command`` and the log's path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "judge.py").write_text(JUDGE, encoding="utf-8")
    (folder / "verdicts.json").write_text(json.dumps(verdicts), encoding="utf-8")
    log = folder / "requests.log"
    command = shlex.join([sys.executable, str(folder / "judge.py"), str(folder / "verdicts.json"), str(log)])
    return command, log


def logged(log: Path) -> list[dict]:
    """Every request the judge program got, in order."""
    if not log.exists():
        return []
    return [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x.strip()]


def proposals(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
