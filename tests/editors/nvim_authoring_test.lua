-- Headless Neovim: golden-lsp's inlay hints in a questions buffer and a code lens in a corpus chapter.
-- Run as: nvim --headless -i NONE -n -u tests/editors/nvim_init.lua -c 'luafile tests/editors/nvim_authoring_test.lua' QUESTIONS_FILE
-- env: GOLDEN_OUT (JSON result file), GOLDEN_CHAPTER (a corpus file), GOLDEN_TIMEOUT_MS (per wait)
local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local chapter = assert(os.getenv('GOLDEN_CHAPTER'), 'GOLDEN_CHAPTER not set')
local result, timeout, finish, step = t.result, t.timeout, t.finish, t.step

local function main()
  local golden = require('golden_lsp')
  local buf = vim.api.nvim_get_current_buf()
  local client = t.client(buf)
  if not client then
    return
  end
  step('client attached')

  -- 1. the plugin turned inlay hints on for the questions buffer; Neovim fetched them
  result.inlay_enabled = vim.lsp.inlay_hint.is_enabled({ bufnr = buf })
  local hints = {}
  vim.wait(timeout, function()
    vim.cmd('redraw')
    hints = vim.lsp.inlay_hint.get({ bufnr = buf })
    return #hints > 0
  end, 100)
  result.inlay_hints = {}
  for _, h in ipairs(hints) do
    local label = h.inlay_hint.label
    if type(label) == 'table' then
      label = table.concat(vim.tbl_map(function(p) return p.value end, label))
    end
    table.insert(result.inlay_hints, { line = h.inlay_hint.position.line, label = label })
  end
  step(('%d inlay hints'):format(#hints))

  -- 2. a corpus chapter: the code lens over a labelled block
  vim.cmd('edit ' .. vim.fn.fnameescape(chapter))
  local cbuf = vim.api.nvim_get_current_buf()
  vim.wait(2000, function()
    return golden.get_clients(cbuf)[1] ~= nil
  end, 50)
  if golden.get_clients(cbuf)[1] == nil then -- corpus attachment not in the plugin: attach by hand
    vim.lsp.buf_attach_client(cbuf, client.id)
  end
  local lenses = {}
  vim.wait(timeout, function()
    pcall(vim.lsp.codelens.refresh, { bufnr = cbuf })
    vim.wait(200)
    lenses = vim.lsp.codelens.get(cbuf)
    return #lenses > 0
  end, 200)
  result.code_lenses = {}
  for _, l in ipairs(lenses) do
    table.insert(result.code_lenses, { line = l.range.start.line, title = l.command and l.command.title })
  end
  step(('%d code lenses'):format(#lenses))
  result.ok = #result.inlay_hints > 0 and #result.code_lenses > 0
  return finish(result.ok and 0 or 2)
end

t.run(main)
