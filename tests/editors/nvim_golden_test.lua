-- Headless Neovim end-to-end check of golden-lsp through the editors/nvim plugin.
-- Run as: nvim --headless -i NONE -n -u tests/editors/nvim_init.lua -c 'luafile tests/editors/nvim_golden_test.lua' QUESTIONS_FILE
-- env: GOLDEN_OUT (JSON result file), GOLDEN_AMBIGUOUS_LINE (0-based), GOLDEN_HOVER_LINE (0-based),
--      GOLDEN_HOVER_COL / _UTF8 / _UTF32 (0-based, per position encoding), GOLDEN_TIMEOUT_MS (per wait, default 30000)
local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local result, timeout, finish, step, code_of = t.result, t.timeout, t.finish, t.step, t.code_of

local function main()
  local golden = require('golden_lsp')
  local buf = vim.api.nvim_get_current_buf()
  local v = vim.version()
  result.nvim = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  result.file = vim.api.nvim_buf_get_name(buf)
  result.filetype = vim.bo[buf].filetype
  result.method = golden.use_config_api() and 'config' or 'start'
  result.method_env = os.getenv('GOLDEN_NVIM_METHOD')
  step('nvim ' .. result.nvim .. ' filetype=' .. result.filetype .. ' method=' .. result.method)

  local amb_line = tonumber(os.getenv('GOLDEN_AMBIGUOUS_LINE') or '-1')

  -- 1. the plugin attached a client
  local client = t.client(buf)
  if not client then
    return
  end
  result.client_name = client.name
  result.cmd = client.config.cmd
  result.offset_encoding = client.offset_encoding
  step('client attached: ' .. vim.inspect(client.config.cmd))

  -- 2. diagnostics, including the ambiguous quote
  local target
  vim.wait(timeout, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if code_of(d) == 'quote-ambiguous' and (amb_line < 0 or d.lnum == amb_line) then
        target = d
        return true
      end
    end
    return false
  end, 50)
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.diagnostics, { line = d.lnum, col = d.col, code = code_of(d), source = d.source, message = d.message, severity = d.severity })
  end
  if not target then
    result.error = 'no quote-ambiguous diagnostic on line ' .. amb_line
    return finish(2)
  end
  result.ambiguous_message = target.message
  step('diagnostic: ' .. target.message)

  -- 3. hover on a resolved quote
  local hline = tonumber(os.getenv('GOLDEN_HOVER_LINE') or '0')
  -- the column in the position encoding the client negotiated
  local enc = client.offset_encoding or 'utf-16'
  local hcol = tonumber((enc == 'utf-8' and os.getenv('GOLDEN_HOVER_COL_UTF8'))
    or (enc == 'utf-32' and os.getenv('GOLDEN_HOVER_COL_UTF32'))
    or os.getenv('GOLDEN_HOVER_COL') or '0')
  local hres, herr = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = hline, character = hcol },
  }, timeout)
  result.hover = nil
  for _, r in pairs(hres or {}) do
    if r.result and r.result.contents then
      local c = r.result.contents
      result.hover = type(c) == 'table' and (c.value or vim.inspect(c)) or tostring(c)
      result.hover_kind = type(c) == 'table' and c.kind or nil
    elseif r.err then
      result.hover_error = vim.inspect(r.err)
    end
  end
  if not result.hover then
    result.error = 'empty hover ' .. tostring(herr or result.hover_error)
    return finish(3)
  end
  step('hover: ' .. result.hover:sub(1, 120))

  -- 4. code actions for the ambiguous quote; apply the lengthen fix
  local lsp_diag = target.user_data and target.user_data.lsp
  local range
  if lsp_diag then
    range = lsp_diag.range
  else
    range = {
      start = { line = target.lnum, character = target.col },
      ['end'] = { line = target.end_lnum or target.lnum, character = target.end_col or target.col },
    }
    lsp_diag = { range = range, message = target.message, code = code_of(target), source = target.source, severity = target.severity }
  end
  local cres = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = range,
    context = { diagnostics = { lsp_diag }, only = { 'quickfix' } },
  }, timeout)
  local actions = {}
  for _, r in pairs(cres or {}) do
    for _, a in ipairs(r.result or {}) do
      table.insert(actions, a)
    end
  end
  result.code_actions = vim.tbl_map(function(a)
    return a.title
  end, actions)
  local chosen
  for _, a in ipairs(actions) do
    if a.title:match('^Lengthen to the occurrence at %d+:%d+') and not a.disabled then
      chosen = a
      break
    end
  end
  if not chosen then
    result.error = 'no "Lengthen to the occurrence at L:C" action'
    return finish(4)
  end
  step('applying: ' .. chosen.title)
  result.applied_title = chosen.title
  local before = vim.api.nvim_buf_get_lines(buf, target.lnum, target.lnum + 1, false)[1]
  if not chosen.edit and not chosen.command and chosen.data then
    local rr = client.request_sync and (vim.fn.has('nvim-0.11') == 1 and client:request_sync('codeAction/resolve', chosen, timeout, buf)
      or client.request_sync('codeAction/resolve', chosen, timeout, buf))
    if rr and rr.result then
      chosen = rr.result
    end
  end
  if chosen.edit then
    vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding or 'utf-16')
  end
  local cmd = chosen.command
  if type(cmd) == 'table' then
    local params = { command = cmd.command, arguments = cmd.arguments }
    if vim.fn.has('nvim-0.11') == 1 then
      client:request_sync('workspace/executeCommand', params, timeout, buf)
    else
      client.request_sync('workspace/executeCommand', params, timeout, buf)
    end
  end
  vim.wait(5000, function()
    return vim.api.nvim_buf_get_lines(buf, target.lnum, target.lnum + 1, false)[1] ~= before
  end, 50)
  result.line_before = before
  result.line_after = vim.api.nvim_buf_get_lines(buf, target.lnum, target.lnum + 1, false)[1]

  -- 5. the diagnostic clears
  local cleared = vim.wait(timeout, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if code_of(d) == 'quote-ambiguous' and d.lnum == target.lnum then
        return false
      end
    end
    return true
  end, 50)
  result.cleared = cleared
  result.diagnostics_after = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.diagnostics_after, { line = d.lnum, code = code_of(d), message = d.message })
  end
  if not cleared then
    result.error = 'quote-ambiguous diagnostic did not clear'
    return finish(5)
  end
  step('diagnostic cleared')

  -- 6. the plugin's commands and status
  vim.cmd('silent write')
  local check, cerr = golden.execute('golden-lsp.check', buf, timeout)
  result.check = check
  result.check_error = cerr
  result.status = golden.status[buf]
  result.statusline = golden.statusline(buf)
  result.ok = true
  step('OK')
  return finish(0)
end

t.run(main)
