-- Headless Neovim: completion in a questions file, typed and chosen as a person does. For each case
-- a line is written with the cursor where its `|` is; in Insert mode <C-x><C-o> (the LSP omnifunc)
-- asks for completion: a sole candidate is inserted at once (Neovim's default 'completeopt' has no
-- menuone), otherwise the menu opens and <C-n> moves to the item the case picks and <C-y> confirms
-- it; then the buffer line is read back.
-- Run after the client is set up (the plugin, the lspconfig-style file with or without a README
-- snippet):
--   nvim --headless ... -c 'luafile tests/editors/nvim_completion_test.lua'
-- env: GOLDEN_OUT (JSON result file), GOLDEN_TIMEOUT_MS (per wait), GOLDEN_QUESTIONS (the file
--      edited), GOLDEN_COMPLETE_LINE (0-based line the cases are written to), GOLDEN_COMPLETE_CASES
--      (JSON list of {line = text with `|` at the cursor, pick = "first" | "multiword"}: the item
--      selected when the menu opens, or the first multi-word item after it)
local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local result, timeout = t.result, t.timeout
local line0 = tonumber(os.getenv('GOLDEN_COMPLETE_LINE') or '0')
local cases = vim.json.decode(os.getenv('GOLDEN_COMPLETE_CASES') or '[]')
local keys = function(s)
  return vim.api.nvim_replace_termcodes(s, true, false, true)
end

local buf
result.rounds = {}

--- poll(pred, then): call then() once pred() is true (checked every 50 ms from the event loop, so
--- typed keys and server replies are handled in between), or finish with `code` after the timeout.
local function poll(what, code, pred, then_)
  local deadline = vim.uv.now() + timeout
  local timer = vim.uv.new_timer()
  timer:start(50, 50, vim.schedule_wrap(function()
    if not timer:is_active() then
      return
    end
    local ok, done = pcall(pred)
    if ok and done then
      timer:stop()
      timer:close()
      local ok2, err = xpcall(then_, debug.traceback)
      if not ok2 then
        result.error = 'lua error: ' .. tostring(err)
        t.finish(9)
      end
    elseif not ok or vim.uv.now() > deadline then
      timer:stop()
      timer:close()
      result.error = ok and ('timed out waiting for ' .. what) or ('lua error: ' .. tostring(done))
      t.finish(code)
    end
  end))
end

local function current_line()
  return vim.api.nvim_buf_get_lines(buf, line0, line0 + 1, false)[1]
end

local function round(i)
  if i > #cases then
    result.ok = true
    return t.finish(0)
  end
  local case = cases[i]
  local r = { case = case }
  table.insert(result.rounds, r)
  local at = case.line:find('|', 1, true)
  local line = case.line:sub(1, at - 1) .. case.line:sub(at + 1)
  vim.api.nvim_buf_set_lines(buf, line0, line0 + 1, false, { line })
  r.line_before = line
  -- Normal mode on the character after the cursor's place: `i` inserts just before it
  vim.api.nvim_win_set_cursor(0, { line0 + 1, at - 1 })
  local function done()
    vim.api.nvim_feedkeys(keys('<Esc>'), 'n', false)
    poll('Normal mode', 6, function()
      return vim.api.nvim_get_mode().mode == 'n'
    end, function()
      r.line_after = current_line()
      round(i + 1)
    end)
  end
  vim.api.nvim_feedkeys(keys('i<C-x><C-o>'), 'n', false)
  -- the menu opens, or a sole candidate is inserted at once (the line changes, no menu)
  poll('the completion', 3, function()
    return (vim.fn.pumvisible() == 1 and #vim.fn.complete_info({ 'items' }).items > 0)
      or (vim.fn.pumvisible() == 0 and current_line() ~= line)
  end, function()
    if vim.fn.pumvisible() == 0 then
      r.sole = true
      return done()
    end
    local info = vim.fn.complete_info({ 'items', 'selected' })
    r.menu = vim.tbl_map(function(it)
      return { word = it.word, abbr = it.abbr }
    end, info.items)
    r.selected_at_open = info.selected
    local target = math.max(info.selected, 0)
    if case.pick == 'multiword' then
      target = nil
      for idx, it in ipairs(info.items) do
        if idx > 1 and it.abbr:find(' ') then
          target = idx - 1
          break
        end
      end
      if not target then
        result.error = 'no multi-word item after the first in the menu'
        return t.finish(4)
      end
    end
    r.chosen = info.items[target + 1].abbr
    r.keys = ('<C-n>'):rep(target - info.selected) .. '<C-y>'
    vim.api.nvim_feedkeys(keys(r.keys), 'n', false)
    poll('the menu to close', 5, function()
      return vim.fn.pumvisible() == 0
    end, done)
  end)
end

local function main()
  if os.getenv('GOLDEN_QUESTIONS') and vim.api.nvim_buf_get_name(0) == '' then
    vim.cmd.edit(vim.fn.fnameescape(os.getenv('GOLDEN_QUESTIONS')))
  end
  buf = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[buf].filetype
  local client
  local attached = vim.wait(timeout, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'golden_lsp' })[1]
    return client ~= nil and client.initialized
  end, 50)
  if not attached then
    result.error = 'no golden_lsp client attached'
    return t.finish(1)
  end
  result.omnifunc = vim.bo[buf].omnifunc
  result.completeopt = vim.o.completeopt
  t.step('client attached; omnifunc=' .. result.omnifunc)
  round(1)
end

t.run(main)
