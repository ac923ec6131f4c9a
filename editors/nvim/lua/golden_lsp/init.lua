-- golden-lsp for Neovim: registers the golden-lsp language server for golden questions files
-- (questions.jsonl, *.questions.jsonl), and attaches it to the Markdown chapters of their corpus
-- (the server names each set's corpus folder in its golden-lsp/status notification), so an
-- unsaved edit to a chapter re-checks the questions at once.
-- Neovim 0.11+ (vim.lsp.config, vim.lsp.enable, vim.lsp.completion): the server is registered with
-- vim.lsp.config() + vim.lsp.enable(), or with method = 'start' by a FileType autocmd that calls
-- vim.lsp.start(). Questions buffers get inlay hints and Neovim's completion applying whole edits
-- (completion.lua); chapters get their code lenses kept current.
--
--   require('golden_lsp').setup({
--     cmd = { 'golden-lsp' },             -- default: golden-lsp on PATH, else python3 -m golden_lsp
--     overrides = { max_chars = 1200 },   -- sent as initializationOptions.overrides
--     patterns = { '.*/golden/.*%.jsonl' }, -- extra Lua patterns of questions files
--     inlay_hints = true,                 -- each quote's resolution after it
--     completion = true,                  -- Neovim's completion; { autotrigger = true }; false: none
--     code_lens = true,                   -- chapters' code lenses, refreshed by the plugin
--   })
local M = {}

M.name = 'golden_lsp'
M.filetype = 'golden_questions'
M.language_id = 'golden-questions'
M.root_markers = { 'golden-lsp.toml', '.git' }

local defaults = {
  cmd = nil,
  filetypes = { M.filetype },
  root_markers = M.root_markers,
  overrides = {},
  patterns = {},
  -- 'auto' and 'config': vim.lsp.config/enable; 'start': a FileType autocmd calling vim.lsp.start.
  method = 'auto',
  on_attach = nil,
  capabilities = nil,
  inlay_hints = true,
  -- Neovim's own completion (<C-x><C-o>, vim.lsp.completion.get()) applying each item's whole edit;
  -- { autotrigger = true } opens the menu as you type; false leaves completion to you (nvim-cmp, blink.cmp)
  completion = true,
  -- code lenses in corpus chapters (`labelled by ex003`), refreshed on attach, BufEnter, edits and
  -- the server's workspace/codeLens/refresh
  code_lens = true,
}

M.options = vim.deepcopy(defaults)

--- buffer number -> last golden-lsp/status params {uri, records, errors, warnings, corpus}
M.status = {}

--- client id -> { [corpus folder] = true }: the corpus folders of the sets the server checks
M.corpus_roots = {}

local function notify(msg, level)
  vim.schedule(function()
    vim.notify('golden-lsp: ' .. msg, level or vim.log.levels.INFO)
  end)
end

local function get_clients(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = M.name })
end
M.get_clients = get_clients

--- The server command: the `cmd` option, else golden-lsp on PATH, else python3 -m golden_lsp.
function M.default_cmd()
  if vim.fn.executable('golden-lsp') == 1 then
    return { 'golden-lsp' }
  end
  for _, py in ipairs({ 'python3', 'python' }) do
    if vim.fn.executable(py) == 1 then
      return { py, '-m', 'golden_lsp' }
    end
  end
  return nil
end

local function resolve_cmd()
  local cmd = M.options.cmd or M.default_cmd()
  if type(cmd) == 'string' then
    cmd = { cmd }
  end
  if type(cmd) == 'table' and (cmd[1] == nil or vim.fn.executable(cmd[1]) ~= 1) then
    notify(
      ('cannot run the server %q: not an executable. Install it (pip install golden-lsp) or pass cmd = {...} to setup().'):format(
        tostring(cmd[1])
      ),
      vim.log.levels.ERROR
    )
    return nil
  end
  if cmd == nil then
    notify('cannot find the server: no golden-lsp or python3 on PATH. Install it with pip install golden-lsp.', vim.log.levels.ERROR)
  end
  return cmd
end

--- Filetype detection for questions files (also done by ftdetect/golden_questions.lua).
function M.detect(extra_patterns)
  local pattern = {
    ['.*%.questions%.jsonl'] = M.filetype,
  }
  for _, p in ipairs(extra_patterns or {}) do
    pattern[p] = M.filetype
  end
  vim.filetype.add({
    filename = { ['questions.jsonl'] = M.filetype },
    pattern = pattern,
  })
end

local function normalize(path)
  return vim.fs.normalize(vim.fn.resolve(path))
end

--- Attach the golden-lsp client whose corpus contains buffer `bufnr` (a loaded Markdown file).
function M.attach_corpus(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if not name:match('%.md$') then
    return
  end
  name = normalize(name)
  for id, roots in pairs(M.corpus_roots) do
    if vim.lsp.get_client_by_id(id) == nil then
      M.corpus_roots[id] = nil
    else
      for root in pairs(roots) do
        if name:sub(1, #root + 1) == root .. '/' and not vim.lsp.buf_is_attached(bufnr, id) then
          vim.lsp.buf_attach_client(bufnr, id)
        end
      end
    end
  end
end

--- Chapters opened from now on attach too (idempotent).
function M.track_corpus()
  local group = vim.api.nvim_create_augroup('golden_lsp_corpus', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = '*.md',
    callback = function(args)
      M.attach_corpus(args.buf)
    end,
  })
end

local function learn_corpus(client_id, corpus)
  local root = normalize(corpus)
  local roots = M.corpus_roots[client_id] or {}
  M.corpus_roots[client_id] = roots
  if roots[root] then
    return
  end
  roots[root] = true
  M.track_corpus()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    M.attach_corpus(b)
  end
end

function M.status_handler(_, result, ctx)
  if type(result) ~= 'table' or type(result.uri) ~= 'string' then
    return
  end
  local ok, bufnr = pcall(vim.uri_to_bufnr, result.uri)
  if ok and bufnr then
    M.status[bufnr] = result
    pcall(function()
      vim.b[bufnr].golden_lsp_status = result
    end)
  end
  vim.schedule(function()
    if ctx and ctx.client_id and type(result.corpus) == 'string' then
      learn_corpus(ctx.client_id, result.corpus)
    end
    -- the status arrives after the diagnostics' redraw: draw the status lines again with it
    pcall(vim.cmd, 'redrawstatus!')
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'GoldenLspStatus', modeline = false, data = result })
  end)
end

--- The languageId of a buffer: questions files are golden-questions, chapters keep theirs (markdown).
function M.language_id_of(_, filetype)
  return filetype == M.filetype and M.language_id or filetype
end

--- The last status of the set `bufnr` belongs to: its own (a questions file), else that of a set
--- whose corpus holds it (a chapter).
local function status_for(bufnr)
  if M.status[bufnr] then
    return M.status[bufnr]
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    return nil
  end
  name = normalize(name)
  for _, st in pairs(M.status) do
    if type(st.corpus) == 'string' then
      local root = normalize(st.corpus)
      if name:sub(1, #root + 1) == root .. '/' then
        return st
      end
    end
  end
  return nil
end

--- Statusline component: "golden: 75 records, 2 errors" for the current buffer — a questions file,
--- or a chapter of a set's corpus (that set's) — and '' elsewhere.
function M.statusline(bufnr)
  local st = status_for(bufnr or vim.api.nvim_get_current_buf())
  if not st then
    return ''
  end
  local function plural(n, word)
    return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
  end
  local parts = { plural(st.records or 0, 'record') }
  if (st.errors or 0) > 0 then
    table.insert(parts, plural(st.errors, 'error'))
  end
  if (st.warnings or 0) > 0 then
    table.insert(parts, plural(st.warnings, 'warning'))
  end
  return 'golden: ' .. table.concat(parts, ', ')
end

--- On attach: inlay hints on in questions buffers (each quote's resolution written after it),
--- Neovim's completion applying whole edits there, code lenses kept fresh in chapters, then the
--- user's on_attach.
function M.on_attach(client, bufnr)
  local questions = vim.bo[bufnr].filetype ~= 'markdown'
  if M.options.inlay_hints ~= false and questions and vim.lsp.inlay_hint then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
  if M.options.completion ~= false and questions then
    require('golden_lsp.completion').enable(client, bufnr, type(M.options.completion) == 'table' and M.options.completion or {})
  end
  if M.options.code_lens ~= false and vim.lsp.codelens and M.supports(client, 'textDocument/codeLens', bufnr) then
    M.keep_code_lenses(bufnr)
  end
  if M.options.on_attach then
    M.options.on_attach(client, bufnr)
  end
end

function M.supports(client, method, bufnr)
  return client:supports_method(method, bufnr)
end

local function refresh_code_lenses(bufnr)
  if vim.api.nvim_buf_is_loaded(bufnr) and #get_clients(bufnr) > 0 then
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
end

--- Code lenses (`labelled by ex003` over a chapter's labelled blocks) without a manual refresh:
--- fetched now, on BufEnter and after edits, and on the server's workspace/codeLens/refresh.
function M.keep_code_lenses(bufnr)
  local group = vim.api.nvim_create_augroup('golden_lsp_codelens_' .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
    group = group,
    buffer = bufnr,
    callback = function(args)
      refresh_code_lenses(args.buf)
    end,
  })
  refresh_code_lenses(bufnr)
end

--- workspace/codeLens/refresh: the labels changed (a questions file or a chapter was edited);
--- fetch the lenses again in every loaded buffer of that client.
function M.code_lens_refresh_handler(_, _, ctx)
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  if client and M.options.code_lens ~= false then
    vim.schedule(function()
      for bufnr in pairs(client.attached_buffers or {}) do
        refresh_code_lenses(bufnr)
      end
    end)
  end
  return vim.NIL
end

--- What the plugin adds to Neovim's client capabilities: it handles workspace/codeLens/refresh.
M.capabilities = { workspace = { codeLens = { refreshSupport = true } } }

--- The client config shared by both registration methods.
function M.client_config(cmd)
  return {
    name = M.name,
    cmd = cmd,
    filetypes = M.options.filetypes,
    root_markers = M.options.root_markers,
    -- statusNotification: the server sends golden-lsp/status only to a client that asks for it
    init_options = { overrides = M.options.overrides or {}, statusNotification = true },
    settings = { overrides = M.options.overrides or {} },
    get_language_id = M.language_id_of,
    handlers = {
      ['golden-lsp/status'] = M.status_handler,
      ['workspace/codeLens/refresh'] = M.code_lens_refresh_handler,
    },
    on_attach = M.on_attach,
    capabilities = vim.tbl_deep_extend('force', M.capabilities, M.options.capabilities or {}),
  }
end

local function find_root(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fs.dirname(fname)
  local found = vim.fs.find(M.options.root_markers, { upward = true, path = dir })[1]
  return found and vim.fs.dirname(found) or dir
end

function M.use_config_api()
  return M.options.method ~= 'start'
end

--- Start (or reuse) the client for one buffer (method = 'start').
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local cmd = resolve_cmd()
  if not cmd then
    return nil
  end
  local config = M.client_config(cmd)
  config.root_dir = find_root(bufnr)
  config.filetypes = nil
  config.root_markers = nil
  return vim.lsp.start(config, { bufnr = bufnr })
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if vim.fn.has('nvim-0.11') == 0 then
    notify('needs Neovim 0.11 or newer (vim.lsp.config, vim.lsp.enable, vim.lsp.completion)', vim.log.levels.ERROR)
    return
  end
  M.detect(M.options.patterns)
  local group = vim.api.nvim_create_augroup('golden_lsp', { clear = true })
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(args)
      M.status[args.buf] = nil
    end,
  })
  if M.use_config_api() then
    local cmd = resolve_cmd()
    if not cmd then
      return
    end
    local config = M.client_config(cmd)
    config.name = nil
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = M.options.filetypes,
      callback = function(args)
        M.start(args.buf)
      end,
    })
    -- buffers that already have the filetype (setup() called late)
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(M.options.filetypes, vim.bo[b].filetype) then
        M.start(b)
      end
    end
  end
end

--- Run a server command ('golden-lsp.build' or 'golden-lsp.check') for the buffer's file.
--- Synchronous (timeout_ms, default 60 s); returns result, err.
function M.execute(command, bufnr, timeout_ms)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = get_clients(bufnr)[1] or get_clients(nil)[1]
  if not client then
    return nil, 'no golden-lsp client is running'
  end
  local args = {}
  if vim.bo[bufnr].filetype == M.filetype then
    args = { vim.uri_from_bufnr(bufnr) }
  end
  local params = { command = command, arguments = args }
  local resp = client:request_sync('workspace/executeCommand', params, timeout_ms or 60000, bufnr)
  if not resp then
    return nil, 'timeout or error running ' .. command
  end
  if resp.err then
    return nil, resp.err.message or vim.inspect(resp.err)
  end
  return resp.result, nil
end

function M.build(bufnr)
  local res, err = M.execute('golden-lsp.build', bufnr, 120000)
  if err then
    notify('build failed: ' .. err, vim.log.levels.ERROR)
  elseif res then
    notify(res.message or vim.inspect(res), res.ok and vim.log.levels.INFO or vim.log.levels.ERROR)
  end
  return res, err
end

function M.check(bufnr)
  local res, err = M.execute('golden-lsp.check', bufnr, 60000)
  if err then
    notify('check failed: ' .. err, vim.log.levels.ERROR)
  elseif res then
    notify(
      ('%d records, %d errors, %d warnings'):format(res.records or 0, res.errors or 0, res.warnings or 0),
      (res.errors or 0) > 0 and vim.log.levels.ERROR or vim.log.levels.INFO
    )
  end
  return res, err
end

function M.restart()
  for _, c in ipairs(get_clients(nil)) do
    c:stop()
  end
  vim.defer_fn(function()
    if M.use_config_api() then
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == M.filetype then
          vim.api.nvim_exec_autocmds('FileType', { buffer = b, modeline = false })
        end
      end
    else
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == M.filetype then
          M.start(b)
        end
      end
    end
  end, 500)
end

return M
