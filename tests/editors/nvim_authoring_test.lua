-- Headless Neovim: golden-lsp's inlay hints in a questions buffer and the code lenses of a corpus
-- chapter, shown and kept current by the plugin (the script never asks for a refresh); "Anchor here"
-- on a selection of words that repeat elsewhere in the chapter, as vim.lsp.buf.code_action() asks.
-- Run as: nvim --headless -i NONE -n -u tests/editors/nvim_init.lua -c 'luafile tests/editors/nvim_authoring_test.lua' QUESTIONS_FILE
-- env: GOLDEN_OUT (JSON result file), GOLDEN_CHAPTER (a corpus file), GOLDEN_TIMEOUT_MS (per wait),
--      GOLDEN_LENS_ID / GOLDEN_LENS_LINE (a record labelling the chapter, its 0-based line),
--      GOLDEN_ANCHOR (JSON {line, start, end}: 0-based, a selection in the chapter)
local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local chapter = assert(os.getenv('GOLDEN_CHAPTER'), 'GOLDEN_CHAPTER not set')
-- the record whose lens is watched in the chapter, and its 0-based line in the questions file
local lens_id = os.getenv('GOLDEN_LENS_ID') or 'ex001'
local lens_line = tonumber(os.getenv('GOLDEN_LENS_LINE') or '0')
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

  -- 2. a corpus chapter: the plugin attaches it and shows its code lenses by itself (no
  --    vim.lsp.codelens.refresh() here): the virtual text Neovim draws over each labelled block
  vim.cmd('edit ' .. vim.fn.fnameescape(chapter))
  local cbuf = vim.api.nvim_get_current_buf()
  result.chapter_attached = vim.wait(timeout, function()
    return golden.get_clients(cbuf)[1] ~= nil
  end, 50)
  local ns = vim.lsp.codelens.__namespaces[client.id]
  local function drawn()
    local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(cbuf, ns, 0, -1, { details = true })) do
      local text = {}
      for _, chunk in ipairs(m[4].virt_text or {}) do
        table.insert(text, chunk[1])
      end
      for _, vline in ipairs(m[4].virt_lines or {}) do
        for _, chunk in ipairs(vline) do
          table.insert(text, chunk[1])
        end
      end
      table.insert(out, { line = m[2], text = table.concat(text) })
    end
    return out
  end
  local function shows(id)
    for _, l in ipairs(drawn()) do
      if l.text:find('labelled by', 1, true) and l.text:find(id, 1, true) then
        return true
      end
    end
    return false
  end
  result.lens_shown = t.expect('lens_shown_on_open', function()
    return shows(lens_id)
  end)
  result.code_lenses = drawn()
  step(('%d code lenses drawn'):format(#result.code_lenses))

  -- 3. the questions file is edited (the record's quote no longer resolves): the chapter's lenses
  --    follow (the server's workspace/codeLens/refresh), still without a manual refresh
  local line = vim.api.nvim_buf_get_lines(buf, lens_line, lens_line + 1, false)[1]
  local broken = line:gsub('"quote": "[^"]*"', '"quote": "no such words anywhere"', 1)
  vim.api.nvim_buf_set_lines(buf, lens_line, lens_line + 1, false, { broken })
  result.lens_gone_after_edit = t.expect('lens_gone_after_edit', function()
    return not shows(lens_id)
  end)
  -- 4. and back, seen on entering the chapter again
  vim.cmd('buffer ' .. buf)
  vim.api.nvim_buf_set_lines(buf, lens_line, lens_line + 1, false, { line })
  vim.cmd('buffer ' .. cbuf)
  result.lens_back_after_undo = t.expect('lens_back_after_undo', function()
    return shows(lens_id)
  end)
  result.code_lenses_after = drawn()

  -- 5. anchor here on the selection: the code actions Neovim's client gets for it
  local anchor = vim.json.decode((assert(os.getenv('GOLDEN_ANCHOR'), 'GOLDEN_ANCHOR not set')))
  local params = vim.lsp.util.make_given_range_params(
    { anchor.line + 1, anchor.start },
    { anchor.line + 1, anchor['end'] - 1 },
    cbuf,
    client.offset_encoding
  )
  params.context = { diagnostics = {}, triggerKind = 1 }
  local replies = vim.lsp.buf_request_sync(cbuf, 'textDocument/codeAction', params, timeout) or {}
  result.anchor_actions = {}
  for _, reply in pairs(replies) do
    for _, a in ipairs(reply.result or {}) do
      local texts = {}
      for _, edits in pairs((a.edit or {}).changes or {}) do
        for _, e in ipairs(edits) do
          table.insert(texts, e.newText)
        end
      end
      table.insert(result.anchor_actions, { title = a.title, disabled = a.disabled ~= nil, new_texts = texts })
      if a.title == 'New golden question anchored here' and a.edit then
        -- applied as Neovim applies a chosen code action's edit, and the questions file written
        vim.lsp.util.apply_workspace_edit(a.edit, client.offset_encoding)
        vim.api.nvim_buf_call(buf, function()
          vim.cmd('silent write')
        end)
        result.anchor_written = true
      end
    end
  end
  result.ok = #result.inlay_hints > 0
    and result.lens_shown
    and result.lens_gone_after_edit
    and result.lens_back_after_undo
  return finish(result.ok and 0 or 2)
end

t.run(main)
