;;; emacs_positions_test.el --- positions after a non-BMP character in real Emacs (batch)  -*- lexical-binding: t -*-
;;
;; emacs --batch -Q -l tests/editors/emacs_positions_test.el
;; env: those of emacs_support.el, and GOLDEN_EMOJI_LINE (1-based line of a record with a character
;;      outside the BMP before a quote that is not found: the quote starts with an extra `X')
;;
;; The quote-not-found diagnostic must start where the quote's string starts (Emacs counts code
;; points), and deleting the `X' (an incremental change after the character) must make the quote
;; resolve: the server applied the edit where Emacs made it.

(load (expand-file-name "emacs_support.el" (file-name-directory load-file-name)) nil t)

(defun golden-goto-line ()
  "Point at the start of the record's line, in the questions file's buffer."
  (set-buffer (find-buffer-visiting (getenv "GOLDEN_QUESTIONS")))
  (goto-char (point-min))
  (forward-line (1- (string-to-number (getenv "GOLDEN_EMOJI_LINE")))))

(defun golden-diagnostics-on-line ()
  (save-excursion
    (golden-goto-line)
    (flymake-diagnostics (line-beginning-position) (line-end-position))))

(defun golden-main ()
  (unless (golden-open)
    (golden-finish 1))
  (golden-put 'position-encoding
              (pcase golden-client
                ('eglot (format "%S" (plist-get (eglot--capabilities (eglot-current-server)) :positionEncoding)))
                ('lsp-mode (format "%S" (lsp-get (lsp--workspace-server-capabilities (car (lsp-workspaces)))
                                                 :positionEncoding)))))
  (golden-wait 'diagnostic-arrived
               (lambda () (cl-some (lambda (d) (string-match-p "not found" (flymake-diagnostic-text d)))
                                   (golden-diagnostics-on-line))))
  (golden-goto-line)
  (let ((d (cl-find-if (lambda (d) (string-match-p "not found" (flymake-diagnostic-text d)))
                       (golden-diagnostics-on-line))))
    (golden-put 'diagnostic-column (and d (- (flymake-diagnostic-beg d) (line-beginning-position))))
    (golden-put 'diagnostic-text (and d (buffer-substring-no-properties (flymake-diagnostic-beg d)
                                                                         (flymake-diagnostic-end d)))))
  (golden-put 'quote-column (save-excursion (search-forward "\"quote\": ") (- (point) (line-beginning-position))))
  ;; delete the X after the non-BMP character, as a keystroke does
  (golden-goto-line)
  (save-excursion
    (search-forward "\"quote\": \"X")
    (delete-char -1))
  (golden-put 'line-after (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
  ;; (the new record makes the committed artifact stale: that finding stays)
  (golden-wait 'cleared (lambda () (let ((case-fold-search nil))
                                     (not (cl-some (lambda (d) (string-match-p "not found\\|invalid JSON"
                                                                               (flymake-diagnostic-text d)))
                                                   (golden-diagnostics-on-line))))))
  (golden-put 'codes-after (vconcat (mapcar #'flymake-diagnostic-text (golden-diagnostics-on-line))))
  (golden-put 'ok t)
  (golden-finish 0))

(golden-run #'golden-main)
