-- Neovim's own LSP completion (vim.lsp.completion, Neovim 0.11+) for golden-lsp, applying each
-- item's whole edit.
--
-- golden-lsp's items carry a textEdit that replaces the token being typed: inside a quote, the
-- whole JSON string, closing quote included, by the chosen continuation (`"Book every"`). Left
-- alone, Neovim's completion inserts only the first word of a plain-text newText (`"Book`), and
-- only over the text before the cursor. Here the `convert` hook makes the menu insert the whole
-- newText, and on CompleteDone the part of the edit's range after the cursor (the rest of the old
-- string and its closing quote) is removed, so the line ends up as the edit says.
--
-- Standalone (it needs nothing else of the plugin), so it can also be loaded by path:
--   dofile('/path/to/golden-lsp/editors/nvim/lua/golden_lsp/completion.lua').enable(client, bufnr)
local M = {}

--- bufnr -> { [inserted word] = the text after the cursor that the edit also replaces }
local tails = {}

--- A `convert` for vim.lsp.completion.enable(): the whole newText of a plain-text textEdit
--- (snippets are left to Neovim).
function M.converter(bufnr, encoding)
  return function(item)
    local edit = item.textEdit
    if type(edit) ~= 'table' or type(edit.newText) ~= 'string' or item.insertTextFormat == 2 then
      return {}
    end
    local range = edit.range or edit.replace
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    if range and range['end'].line == row - 1 and range.start.line == row - 1 then
      local line = vim.api.nvim_get_current_line()
      local stop = vim.str_byteindex(line, encoding, range['end'].character, false)
      tails[bufnr] = tails[bufnr] or {}
      tails[bufnr][edit.newText] = stop > col and line:sub(col + 1, stop) or ''
    end
    return { word = edit.newText }
  end
end

local function on_complete_done(bufnr)
  local reason = (vim.v.event or {}).reason
  local item = vim.v.completed_item
  if (reason ~= nil and reason ~= 'accept') or type(item) ~= 'table' or not item.word or item.word == '' then
    return -- (Vim also ends the omnifunc's first, empty round, with a discard)
  end
  local tail = (tails[bufnr] or {})[item.word]
  tails[bufnr] = nil
  if not tail or tail == '' then
    return
  end
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local line = vim.api.nvim_get_current_line()
  if line:sub(col + 1, col + #tail) == tail then
    vim.api.nvim_buf_set_text(bufnr, row - 1, col, row - 1, col + #tail, { '' })
  end
end

--- Turn on Neovim's completion for golden-lsp in `bufnr`: <C-x><C-o> (the LSP omnifunc) and
--- vim.lsp.completion.get() then apply each item's whole edit; with opts.autotrigger the menu
--- opens as you type (on the server's trigger characters). Returns false on Neovim < 0.11.
function M.enable(client, bufnr, opts)
  opts = opts or {}
  if not (vim.lsp.completion and vim.lsp.completion.enable) then
    return false
  end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  vim.lsp.completion.enable(true, client.id, bufnr, {
    autotrigger = opts.autotrigger or false,
    convert = M.converter(bufnr, client.offset_encoding or 'utf-16'),
  })
  local group = vim.api.nvim_create_augroup('golden_lsp_completion_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd('CompleteDone', {
    group = group,
    buffer = bufnr,
    callback = function()
      on_complete_done(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd('InsertLeave', {
    group = group,
    buffer = bufnr,
    callback = function()
      tails[bufnr] = nil
    end,
  })
  return true
end

return M
