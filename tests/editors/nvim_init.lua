-- init for the headless Neovim test: load the real plugin from editors/nvim via the runtimepath.
-- env: GOLDEN_NVIM_PLUGIN (path to editors/nvim), GOLDEN_SERVER_CMD (JSON list; unset: the plugin finds
-- the server itself), GOLDEN_NVIM_METHOD: config | start (setup() forcing that path) | enable (no setup():
-- only vim.lsp.enable('golden_lsp') with the plugin's lsp/golden_lsp.lua)
local plugin = assert(os.getenv('GOLDEN_NVIM_PLUGIN'), 'GOLDEN_NVIM_PLUGIN not set')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
local method = os.getenv('GOLDEN_NVIM_METHOD') or 'auto'
local cmd = os.getenv('GOLDEN_SERVER_CMD')
if method == 'enable' then
  if cmd then
    vim.lsp.config('golden_lsp', { cmd = vim.json.decode(cmd) })
  end
  vim.lsp.enable('golden_lsp')
else
  require('golden_lsp').setup({
    cmd = cmd and vim.json.decode(cmd) or nil,
    method = method,
  })
end
