" golden questions files are JSON Lines (with // comment lines): reuse the JSONC/JSON syntax.
if exists('b:current_syntax')
  finish
endif
runtime! syntax/jsonc.vim
if !exists('b:current_syntax')
  runtime! syntax/json.vim
endif
let b:current_syntax = 'golden_questions'
