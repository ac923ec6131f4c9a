vim.bo.commentstring = '// %s'
vim.opt_local.wrap = false
if vim.treesitter and vim.treesitter.language and vim.treesitter.language.register then
  pcall(vim.treesitter.language.register, 'json', 'golden_questions')
end
