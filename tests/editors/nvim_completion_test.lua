-- Headless Neovim: completion inside a quote, typed and chosen as a person does. In Insert mode
-- <C-x><C-o> (the LSP omnifunc) opens the menu of the corpus's continuations; <C-n> moves to a
-- multi-word item and <C-y> confirms it; then the buffer line is read back.
-- Run after the client is set up (the plugin, or the lspconfig-style file and a README snippet):
--   nvim --headless ... -c 'luafile tests/editors/nvim_completion_test.lua' [QUESTIONS_FILE]
-- env: GOLDEN_OUT (JSON result file), GOLDEN_TIMEOUT_MS (per wait), GOLDEN_QUESTIONS (edited here
--      when no file was given), GOLDEN_COMPLETE_LINE (0-based line of a record whose first quote
--      is replaced), GOLDEN_COMPLETE_PREFIX (the quote typed so far), GOLDEN_COMPLETE_ROUNDS
--      (JSON list of the text after the cursor inside the quote, one round each: "" completes at
--      the end of the quote, " xyz" in its middle)
local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local result, timeout = t.result, t.timeout
local line0 = tonumber(os.getenv('GOLDEN_COMPLETE_LINE') or '0')
local prefix = os.getenv('GOLDEN_COMPLETE_PREFIX') or 'Book'
local rounds = vim.json.decode(os.getenv('GOLDEN_COMPLETE_ROUNDS') or '[""]')
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

local completed

local function round(i)
  if i > #rounds then
    result.ok = true
    return t.finish(0)
  end
  local after = rounds[i]
  local r = { after = after }
  table.insert(result.rounds, r)
  -- the record's first quote becomes the prefix (and `after`), the cursor just after the prefix
  local line = vim.api.nvim_buf_get_lines(buf, line0, line0 + 1, false)[1]
  local s, e = line:find('"quote": "[^"]*"')
  assert(s, 'no quote on line ' .. line0)
  local head = line:sub(1, s - 1) .. '"quote": "' .. prefix
  line = head .. after .. '"' .. line:sub(e + 1)
  vim.api.nvim_buf_set_lines(buf, line0, line0 + 1, false, { line })
  r.line_before = line
  vim.api.nvim_win_set_cursor(0, { line0 + 1, #head })
  completed = nil
  vim.api.nvim_feedkeys(keys('i<C-x><C-o>'), 'n', false)
  poll('the completion menu', 3, function()
    return vim.fn.pumvisible() == 1 and #vim.fn.complete_info({ 'items' }).items > 0
  end, function()
    local info = vim.fn.complete_info({ 'items', 'selected' })
    r.menu = vim.tbl_map(function(it)
      return { word = it.word, abbr = it.abbr }
    end, info.items)
    r.selected_at_open = info.selected
    -- the first multi-word item after the first one: <C-n> moves to it, <C-y> confirms it
    local target
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
    r.chosen = info.items[target + 1].abbr
    r.keys = ('<C-n>'):rep(target - info.selected) .. '<C-y>'
    vim.api.nvim_feedkeys(keys(r.keys), 'n', false)
    poll('CompleteDone', 5, function()
      return completed ~= nil
    end, function()
      r.completed = completed
      vim.api.nvim_feedkeys(keys('<Esc>'), 'n', false)
      poll('Normal mode', 6, function()
        return vim.api.nvim_get_mode().mode == 'n'
      end, function()
        r.line_after = vim.api.nvim_buf_get_lines(buf, line0, line0 + 1, false)[1]
        round(i + 1)
      end)
    end)
  end)
end

local function main()
  if os.getenv('GOLDEN_QUESTIONS') and vim.api.nvim_buf_get_name(0) == '' then
    vim.cmd.edit(vim.fn.fnameescape(os.getenv('GOLDEN_QUESTIONS')))
  end
  buf = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[buf].filetype
  vim.api.nvim_create_autocmd('CompleteDone', {
    buffer = buf,
    callback = function()
      local reason = (vim.v.event or {}).reason
      if reason == 'accept' then -- (the omnifunc's first, empty round ends with a discard)
        completed = { word = vim.v.completed_item.word, reason = reason }
      end
    end,
  })
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
