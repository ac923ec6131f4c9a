;;; emacs_test.el --- golden-lsp in real Emacs (batch), through the snippets of editors/README.md  -*- lexical-binding: t -*-
;;
;; emacs --batch -Q -l tests/editors/emacs_test.el
;; env: GOLDEN_CLIENT (eglot | lsp-mode), GOLDEN_SNIPPET (an .el file: the README's snippets for that
;;      client), GOLDEN_QUESTIONS (the questions file to open), GOLDEN_AMBIGUOUS_LINE (1-based line of
;;      an ambiguous quote), GOLDEN_HOVER_LINE / GOLDEN_HOVER_COL (1-based line, 0-based column in
;;      characters, inside a resolved quote), GOLDEN_OUT (JSON result), GOLDEN_TIMEOUT (seconds per wait),
;;      GOLDEN_NO_MARKDOWN (set: markdown-mode is left out, so eglot declares plain-text hovers only)
;;
;; It opens the file as a user does (find-file: auto-mode-alist picks the mode, whose hook starts
;; the client), waits for the server, then reads the diagnostics flymake holds and asks for the
;; hover the way eldoc does; through eglot also what the server sent with the diagnostic (eglot
;; 1.9 declares relatedInformation unsupported) and the code actions at the ambiguous quote, the
;; first "Lengthen" one applied as `eglot-code-actions' applies it.

(load (expand-file-name "emacs_support.el" (file-name-directory load-file-name)) nil t)

(defun golden-line-diagnostics (line)
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- line))
    (mapcar #'flymake-diagnostic-text
            (flymake-diagnostics (line-beginning-position) (line-end-position)))))

(defun golden-eglot-actions (line)
  "What eglot holds of the ambiguous quote's diagnostic on LINE, and its code actions."
  (save-excursion
    (goto-char (point-min))
    (forward-line (1- line))
    (let* ((diag (cl-find-if (lambda (d) (string-match-p "occurs" (flymake-diagnostic-text d)))
                             (flymake-diagnostics (line-beginning-position) (line-end-position))))
           (lsp-diag (and diag (cdr (assoc 'eglot-lsp-diag (eglot--diag-data diag)))))
           (actions (and diag (eglot-code-actions (flymake-diagnostic-beg diag)
                                                  (flymake-diagnostic-end diag))))
           (lengthen (cl-find-if (lambda (a) (string-prefix-p "Lengthen" (plist-get a :title)))
                                 actions)))
      (golden-put 'related-information
                  (if (plist-get lsp-diag :relatedInformation) t :json-false))
      (golden-put 'code-actions (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
      (when lengthen
        (eglot--apply-workspace-edit (plist-get lengthen :edit))
        (golden-put 'lengthened-line
                    (buffer-substring-no-properties (line-beginning-position) (line-end-position)))))))

(defun golden-main ()
  (let ((client golden-client))
    (golden-put 'managed (if (golden-open) t :json-false))
    (golden-put 'server-command
                (pcase client
                  ('eglot (let ((s (eglot-current-server))) (and s (process-command (jsonrpc--process s)))))
                  ('lsp-mode (let ((w (car (lsp-workspaces))))
                               (and w (process-command (lsp--workspace-proc w)))))))
    ;; a diagnostic: flymake's, on the ambiguous quote's line
    (let ((line (string-to-number (getenv "GOLDEN_AMBIGUOUS_LINE"))))
      (golden-wait 'diagnostic-arrived
                   (lambda ()
                     (cl-some (lambda (text) (string-match-p "occurs" text))
                              (golden-line-diagnostics line))))
      (golden-put 'diagnostics (vconcat (golden-line-diagnostics line)))
      (golden-put 'flymake-mode (if (bound-and-true-p flymake-mode) t :json-false))
      (when (eq client 'eglot)
        (golden-eglot-actions line)))
    ;; a hover, asked for as eldoc asks
    (goto-char (point-min))
    (forward-line (1- (string-to-number (getenv "GOLDEN_HOVER_LINE"))))
    (forward-char (string-to-number (getenv "GOLDEN_HOVER_COL")))
    (let ((hover nil))
      (pcase client
        ('eglot (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info "")))))
        ('lsp-mode
         (let ((h (lsp-request "textDocument/hover" (lsp--text-document-position-params))))
           (setq hover (and h (lsp--render-on-hover-content (lsp:hover-contents h) t))))))
      (golden-wait 'hover-arrived (lambda () (and hover (> (length hover) 0))))
      (golden-put 'hover (and hover (substring-no-properties hover))))
    (golden-put 'ok (if (and (eq (alist-get 'diagnostic-arrived golden-result) t)
                             (eq (alist-get 'hover-arrived golden-result) t))
                        t :json-false))
    (golden-finish (if (eq (alist-get 'ok golden-result) t) 0 2))))

(golden-run #'golden-main)
