-- Headless Neovim: the live corpus and the status line through the editors/nvim plugin.
-- Run as: nvim --headless -i NONE -n -u tests/editors/nvim_init.lua -c 'luafile tests/editors/nvim_live_test.lua' QUESTIONS_FILE
-- env: GOLDEN_OUT (JSON result file), GOLDEN_TIMEOUT_MS (per wait),
--      GOLDEN_EDIT_CHAPTER / GOLDEN_EDIT_QUOTE / GOLDEN_EDIT_LINE: a chapter edited (unsaved) in Neovim,
--        a quote of it and the 0-based questions line that quotes it;
--      GOLDEN_DISK_CHAPTER / GOLDEN_DISK_QUOTE / GOLDEN_DISK_LINE: the same for a chapter another
--        program rewrites on disk while it is not open;
--      GOLDEN_RENAMED_TO: where the edited chapter is renamed on disk at the end, while its buffer
--        stays open under the old name.
local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local result = t.result

local function code_on(buf, line, code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if t.code_of(d) == code and d.lnum == line then
      return true
    end
  end
  return false
end

local function not_found_on(buf, line)
  return code_on(buf, line, 'quote-not-found')
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

local function fail(code, message)
  result.error = message
  return t.finish(code)
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
  local function shows_latest()
    return _G.golden_shown == golden.statusline(buf)
  end

  local client
  if not t.expect('attached', function()
    client = golden.get_clients(buf)[1]
    return client ~= nil and golden.status[buf] ~= nil
  end) then
    return fail(1, 'no client or no status for the questions file')
  end
  t.step('client attached, first status: ' .. golden.statusline(buf))

  -- 1. a chapter edited in Neovim, unsaved: the questions file's diagnostics change
  local edit_line = tonumber(os.getenv('GOLDEN_EDIT_LINE'))
  vim.cmd('split ' .. vim.fn.fnameescape(os.getenv('GOLDEN_EDIT_CHAPTER')))
  local chapter = vim.api.nvim_get_current_buf()
  vim.cmd('wincmd p')
  if not t.expect('chapter_attached', function()
    return vim.lsp.buf_is_attached(chapter, client.id)
  end) then
    return fail(2, 'the chapter buffer was not attached to golden_lsp')
  end
  local original = vim.api.nvim_buf_get_lines(chapter, 0, -1, false)
  local edited = plain_replace(table.concat(original, '\n'), os.getenv('GOLDEN_EDIT_QUOTE'), 'EDITED IN NEOVIM')
  vim.api.nvim_buf_set_lines(chapter, 0, -1, false, vim.split(edited, '\n', { plain = true }))
  if not t.expect('edit_breaks', function()
    return not_found_on(buf, edit_line)
  end) then
    return fail(3, 'editing the chapter did not make its quote not-found')
  end
  t.step('edit in the chapter: quote-not-found on line ' .. edit_line)

  -- 2. the status line shows that analysis, not the one before
  t.expect('status_errors', function()
    return ((golden.status[buf] or {}).errors or 0) > 0
  end)
  result.statusline_want = golden.statusline(buf)
  t.expect('statusline_current', shows_latest)
  result.statusline_shown = _G.golden_shown
  if not result.statusline_current then
    return fail(4, 'the status line does not show the latest analysis')
  end
  t.step('status line: ' .. tostring(_G.golden_shown))
  -- the chapter's status line is its set's
  result.chapter_statusline = golden.statusline(chapter)

  vim.api.nvim_buf_set_lines(chapter, 0, -1, false, original)
  if not t.expect('undo_clears', function()
    return not not_found_on(buf, edit_line)
  end) then
    return fail(5, 'restoring the chapter did not clear quote-not-found')
  end
  t.expect('statusline_after_undo', shows_latest)
  t.step('chapter restored; status line: ' .. tostring(_G.golden_shown))

  -- 3. another program rewrites a chapter that is not open (git checkout, a script)
  local disk = os.getenv('GOLDEN_DISK_CHAPTER')
  local disk_line = tonumber(os.getenv('GOLDEN_DISK_LINE'))
  local disk_text = read_file(disk)
  write_file(disk, plain_replace(disk_text, os.getenv('GOLDEN_DISK_QUOTE'), 'CHANGED ON DISK'))
  if not t.expect('disk_breaks', function()
    return not_found_on(buf, disk_line)
  end) then
    return fail(6, 'a change on disk was not picked up')
  end
  t.step('change on disk: quote-not-found on line ' .. disk_line)
  write_file(disk .. '.tmp', disk_text)
  assert(os.rename(disk .. '.tmp', disk))
  if not t.expect('disk_restored', function()
    return not not_found_on(buf, disk_line)
  end) then
    return fail(7, 'restoring the chapter on disk was not picked up')
  end
  t.step('restored on disk')

  -- 4. the open chapter renamed on disk (its buffer keeps the old name): no document any more
  assert(os.rename(os.getenv('GOLDEN_EDIT_CHAPTER'), os.getenv('GOLDEN_RENAMED_TO')))
  if not t.expect('rename_unknown', function()
    return code_on(buf, edit_line, 'unknown-doc')
  end) then
    return fail(8, 'the chapter renamed on disk still counts under its old name')
  end
  -- an edit of the orphaned buffer does not bring it back, and it has no code lenses
  vim.api.nvim_buf_set_lines(chapter, 0, -1, false, vim.list_extend(vim.deepcopy(original), { '', 'More text.' }))
  vim.wait(1500)
  result.orphan_edit_unknown = code_on(buf, edit_line, 'unknown-doc')
  local lenses = client:request_sync('textDocument/codeLens', { textDocument = vim.lsp.util.make_text_document_params(chapter) }, 10000, chapter)
  result.orphan_lenses = lenses and lenses.result and #lenses.result or 0
  result.diagnostics_after_rename = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(result.diagnostics_after_rename, { line = d.lnum, code = t.code_of(d) })
  end
  t.step('renamed on disk: unknown-doc on line ' .. edit_line)
  result.ok = true
  return t.finish(0)
end

t.run(main)
