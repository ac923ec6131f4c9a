-- Shared by the headless Neovim test scripts: a result table written as JSON to GOLDEN_OUT,
-- progress steps, exits that never hang, and a bounded wait that records its outcome.
--   local t = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/nvim_support.lua')
local M = {}

M.out_path = assert(os.getenv('GOLDEN_OUT'), 'GOLDEN_OUT not set')
M.timeout = tonumber(os.getenv('GOLDEN_TIMEOUT_MS') or '30000')
M.result = { ok = false, steps = {} }

function M.finish(code)
  local f = io.open(M.out_path, 'w')
  if f then
    f:write(vim.json.encode(M.result))
    f:close()
  end
  io.stdout:flush()
  vim.cmd(code == 0 and 'qa!' or ('cq ' .. code))
end

function M.step(s)
  table.insert(M.result.steps, s)
  io.stdout:write(s .. '\n')
end

function M.code_of(d)
  local c = d.code
  if c == nil and d.user_data and d.user_data.lsp then
    c = d.user_data.lsp.code
  end
  return c ~= nil and tostring(c) or nil
end

--- Wait (bounded) for predicate(); result[name] = whether it came true.
function M.expect(name, predicate)
  M.result[name] = vim.wait(M.timeout, predicate, 50)
  return M.result[name]
end

--- The golden_lsp client of ``buf``, waited for (bounded); nil, with the result written and Neovim
--- told to exit 1, when none attaches (the caller returns at once).
function M.client(buf)
  local golden = require('golden_lsp')
  local client
  vim.wait(M.timeout, function()
    client = golden.get_clients(buf)[1]
    return client ~= nil
  end, 50)
  if not client then
    M.result.error = 'no golden_lsp client attached'
    M.finish(1)
  end
  return client
end

--- Run main() so that a Lua error ends Neovim with status 9 instead of hanging it.
function M.run(main)
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    M.result.error = 'lua error: ' .. tostring(err)
    io.stdout:write(M.result.error .. '\n')
    M.finish(9)
  end
end

return M
