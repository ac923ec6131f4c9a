---@brief
---
--- https://github.com/golden-lsp/golden-lsp
---
--- Diagnostics, hovers and quick fixes for quote-anchored RAG golden sets (`questions.jsonl`).
---
--- A draft of the nvim-lspconfig entry: standalone, needing nothing but the server on PATH
--- (`pip install golden-lsp`, or `:MasonInstall golden-lsp`). The server analyses only questions
--- files (`questions.jsonl`, `*.questions.jsonl`, the file a `golden-lsp.toml` names) among the
--- JSONL buffers it is attached to. The editors/nvim plugin adds a filetype, a status line and
--- commands on top of the same server.
---@type vim.lsp.Config
return {
  cmd = { 'golden-lsp' },
  filetypes = { 'jsonl' },
  root_markers = { 'golden-lsp.toml', 'pyproject.toml', '.git' },
}
