-- Headless Neovim: the live corpus and the status line through the editors/nvim plugin.
-- Run as: nvim --headless -i NONE -n -u tests/editors/nvim_init.lua -c 'luafile tests/editors/nvim_live_test.lua' QUESTIONS_FILE
-- env: GOLDEN_OUT (JSON result file), GOLDEN_TIMEOUT_MS (per wait),
--      GOLDEN_EDIT_CHAPTER / GOLDEN_EDIT_QUOTE / GOLDEN_EDIT_LINE: a chapter edited (unsaved) in Neovim,
--        a quote of it and the 0-based questions line that quotes it;
--      GOLDEN_DISK_CHAPTER / GOLDEN_DISK_QUOTE / GOLDEN_DISK_LINE: the same for a chapter another
--        program rewrites on disk while it is not open.
local out_path = assert(os.getenv('GOLDEN_OUT'), 'GOLDEN_OUT not set')
local timeout = tonumber(os.getenv('GOLDEN_TIMEOUT_MS') or '30000')
local result = { ok = false, steps = {} }

local function finish(code)
  local f = io.open(out_path, 'w')
  if f then
    f:write(vim.json.encode(result))
    f:close()
  end
  io.stdout:flush()
  vim.cmd(code == 0 and 'qa!' or ('cq ' .. code))
end

local function step(s)
  table.insert(result.steps, s)
  io.stdout:write(s .. '\n')
end

local function code_of(d)
  local c = d.code
  if c == nil and d.user_data and d.user_data.lsp then
    c = d.user_data.lsp.code
  end
  return c ~= nil and tostring(c) or nil
end

local function not_found_on(buf, line)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code_of(d) == 'quote-not-found' and d.lnum == line then
      return true
    end
  end
  return false
end

local function write_file(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function plain_replace(text, old, new)
  local i = assert(text:find(old, 1, true), 'quote not in chapter: ' .. old)
  return text:sub(1, i - 1) .. new .. text:sub(i + #old)
end

local function main()
  local golden = require('golden_lsp')
  local buf = vim.api.nvim_get_current_buf()

  -- the status line as the screen shows it: recorded each time Neovim draws it
  _G.golden_shown = nil
  function _G.golden_probe()
    _G.golden_shown = golden.statusline(buf)
    return _G.golden_shown
  end
  vim.o.laststatus = 2
  vim.o.statusline = '%{v:lua.golden_probe()}'

  local client
  vim.wait(timeout, function()
    client = golden.get_clients(buf)[1]
    return client ~= nil and golden.status[buf] ~= nil
  end, 50)
  if not client or not golden.status[buf] then
    result.error = 'no client or no status for the questions file'
    return finish(1)
  end
  step('client attached, first status: ' .. golden.statusline(buf))

  -- 1. a chapter edited in Neovim, unsaved: the questions file's diagnostics change
  local edit_line = tonumber(os.getenv('GOLDEN_EDIT_LINE'))
  local quote = os.getenv('GOLDEN_EDIT_QUOTE')
  vim.cmd('split ' .. vim.fn.fnameescape(os.getenv('GOLDEN_EDIT_CHAPTER')))
  local chapter = vim.api.nvim_get_current_buf()
  vim.cmd('wincmd p')
  result.chapter_attached = vim.wait(timeout, function()
    return vim.lsp.buf_is_attached(chapter, client.id)
  end, 50)
  if not result.chapter_attached then
    result.error = 'the chapter buffer was not attached to golden_lsp'
    return finish(2)
  end
  step('chapter attached')
  local original = vim.api.nvim_buf_get_lines(chapter, 0, -1, false)
  local edited = vim.split(plain_replace(table.concat(original, '\n'), quote, 'EDITED IN NEOVIM'), '\n', { plain = true })
  vim.api.nvim_buf_set_lines(chapter, 0, -1, false, edited)
  result.edit_breaks = vim.wait(timeout, function()
    return not_found_on(buf, edit_line)
  end, 50)
  if not result.edit_breaks then
    result.error = 'editing the chapter did not make its quote not-found'
    return finish(3)
  end
  step('edit in the chapter: quote-not-found on line ' .. edit_line)

  -- 2. the status line shows that analysis, not the one before
  result.status_errors = vim.wait(timeout, function()
    return (golden.status[buf] or {}).errors ~= nil and golden.status[buf].errors > 0
  end, 50)
  local want = golden.statusline(buf)
  result.statusline_current = vim.wait(timeout, function()
    return _G.golden_shown == golden.statusline(buf)
  end, 50)
  result.statusline_want = want
  result.statusline_shown = _G.golden_shown
  if not result.statusline_current then
    result.error = 'the status line does not show the latest analysis'
    return finish(4)
  end
  step('status line: ' .. tostring(_G.golden_shown))

  vim.api.nvim_buf_set_lines(chapter, 0, -1, false, original)
  result.undo_clears = vim.wait(timeout, function()
    return not not_found_on(buf, edit_line)
  end, 50)
  if not result.undo_clears then
    result.error = 'restoring the chapter did not clear quote-not-found'
    return finish(5)
  end
  result.statusline_after_undo = vim.wait(timeout, function()
    return _G.golden_shown == golden.statusline(buf)
  end, 50)
  step('chapter restored; status line: ' .. tostring(_G.golden_shown))

  -- 3. another program rewrites a chapter that is not open (git checkout, a script)
  local disk = os.getenv('GOLDEN_DISK_CHAPTER')
  local disk_line = tonumber(os.getenv('GOLDEN_DISK_LINE'))
  local disk_text = read_file(disk)
  write_file(disk, plain_replace(disk_text, os.getenv('GOLDEN_DISK_QUOTE'), 'CHANGED ON DISK'))
  result.disk_breaks = vim.wait(timeout, function()
    return not_found_on(buf, disk_line)
  end, 50)
  if not result.disk_breaks then
    result.error = 'a change on disk was not picked up'
    return finish(6)
  end
  step('change on disk: quote-not-found on line ' .. disk_line)
  write_file(disk .. '.tmp', disk_text)
  assert(os.rename(disk .. '.tmp', disk))
  result.disk_restored = vim.wait(timeout, function()
    return not not_found_on(buf, disk_line)
  end, 50)
  if not result.disk_restored then
    result.error = 'restoring the chapter on disk was not picked up'
    return finish(7)
  end
  step('restored on disk')
  result.ok = true
  return finish(0)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  result.error = 'lua error: ' .. tostring(err)
  io.stdout:write(result.error .. '\n')
  finish(9)
end
