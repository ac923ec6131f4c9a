-- Neovim 0.11+: `vim.lsp.enable('golden_lsp')` picks this up from the runtimepath.
-- require('golden_lsp').setup() does the same and also lets you pass options.
return {
  cmd = require('golden_lsp').default_cmd(),
  filetypes = { 'golden_questions' },
  root_markers = { 'golden-lsp.toml', '.git' },
  init_options = { overrides = {}, statusNotification = true },
  get_language_id = function(...)
    return require('golden_lsp').language_id_of(...)
  end,
  on_attach = function(...)
    return require('golden_lsp').on_attach(...)
  end,
  capabilities = require('golden_lsp').capabilities,
  handlers = {
    ['golden-lsp/status'] = function(...)
      return require('golden_lsp').status_handler(...)
    end,
    ['workspace/codeLens/refresh'] = function(...)
      return require('golden_lsp').code_lens_refresh_handler(...)
    end,
  },
}
