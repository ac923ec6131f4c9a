-- Neovim's own LSP completion (vim.lsp.completion, Neovim 0.11+) for golden-lsp, inserting each
-- item's whole text.
--
-- golden-lsp's items carry a textEdit that replaces exactly what is typed before the cursor inside
-- the string (`Book` of `"Book"`) by the chosen text (`Book every hut`), and nothing after the
-- cursor. Left alone, Neovim's completion inserts only the first word of a plain-text newText
-- (`Book`); the `convert` hook here makes the menu insert the whole newText.
--
-- Standalone (it needs nothing else of the plugin), so it can also be loaded by path:
--   dofile('/path/to/golden-lsp/editors/nvim/lua/golden_lsp/completion.lua').enable(client, bufnr)
local M = {}

--- A `convert` for vim.lsp.completion.enable(): the whole newText of a plain-text textEdit
--- (snippets are left to Neovim).
function M.convert(item)
  local edit = item.textEdit
  if type(edit) ~= 'table' or type(edit.newText) ~= 'string' or item.insertTextFormat == 2 then
    return {}
  end
  return { word = edit.newText }
end

--- Turn on Neovim's completion for golden-lsp in `bufnr`: <C-x><C-o> (the LSP omnifunc) and
--- vim.lsp.completion.get() then insert each item's whole text; with opts.autotrigger the menu
--- opens as you type (on the server's trigger characters). Returns false on Neovim < 0.11.
function M.enable(client, bufnr, opts)
  opts = opts or {}
  if not (vim.lsp.completion and vim.lsp.completion.enable) then
    return false
  end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  vim.lsp.completion.enable(true, client.id, bufnr, {
    autotrigger = opts.autotrigger or false,
    convert = M.convert,
  })
  return true
end

return M
