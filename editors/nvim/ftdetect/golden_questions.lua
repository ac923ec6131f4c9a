-- questions.jsonl and *.questions.jsonl are golden-lsp questions files (other .jsonl files are not).
vim.filetype.add({
  filename = { ['questions.jsonl'] = 'golden_questions' },
  pattern = { ['.*%.questions%.jsonl'] = 'golden_questions' },
})
