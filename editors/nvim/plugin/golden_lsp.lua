-- User commands; the server itself is registered by require('golden_lsp').setup().
if vim.g.loaded_golden_lsp then
  return
end
vim.g.loaded_golden_lsp = 1

vim.api.nvim_create_user_command('GoldenLspBuild', function()
  require('golden_lsp').build(0)
end, { desc = 'golden-lsp: Build golden set' })
vim.api.nvim_create_user_command('GoldenLspCheck', function()
  require('golden_lsp').check(0)
end, { desc = 'golden-lsp: Check workspace' })
vim.api.nvim_create_user_command('GoldenLspRestart', function()
  require('golden_lsp').restart()
end, { desc = 'golden-lsp: Restart server' })
