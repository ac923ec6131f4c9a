;;; emacs_completion_test.el --- golden-lsp's completion in real Emacs (batch)  -*- lexical-binding: t -*-
;;
;; emacs --batch -Q -l tests/editors/emacs_completion_test.el
;; env: those of emacs_support.el, and GOLDEN_COMPLETE_LINE (1-based line the cases are written to),
;;      GOLDEN_COMPLETE_CASES (JSON list of {line: text with `|` at the cursor, pick: "first" |
;;      "multiword"}), GOLDEN_COMPLETE_UI ("capf": Emacs's own `completion-at-point', as C-M-i runs
;;      it, each case a sole candidate; "company": company-mode's `company-manual-begin', moving to
;;      the item the case picks and `company-complete-selection', as RET does)
;;
;; For each case the line is written with point at its `|', completion is asked for and chosen,
;; and the buffer line is read back.

(load (expand-file-name "emacs_support.el" (file-name-directory load-file-name)) nil t)

(defun golden-complete-case (case ui)
  "Write CASE's line, complete at its `|' with UI, and return what happened (an alist)."
  (let* ((text (alist-get 'line case))
         (at (string-match-p "|" text))
         (line (concat (substring text 0 at) (substring text (1+ at))))
         (round (list (cons 'line_before line))))
    (goto-char (point-min))
    (forward-line (1- (string-to-number (getenv "GOLDEN_COMPLETE_LINE"))))
    (delete-region (line-beginning-position) (line-end-position))
    (insert line)
    (forward-char (- at (length line)))
    ;; the edit reaches the server before completion is asked for (lsp-mode sends it at once)
    (when (eq golden-client 'eglot)
      (eglot--signal-textDocument/didChange))
    (pcase ui
      ("capf" (completion-at-point))
      ("company"
       (company-mode 1) ; (global-company-mode turns on in no batch Emacs)
       (company-manual-begin)
       (golden-wait 'company-candidates (lambda () company-candidates))
       (setf (alist-get 'menu round) (vconcat (mapcar #'substring-no-properties company-candidates)))
       (when (equal (alist-get 'pick case) "multiword")
         (let ((target (cl-position-if (lambda (c) (string-match-p " " c)) (cdr company-candidates))))
           (when target
             (dotimes (_ (1+ target)) (company-select-next)))))
       (setf (alist-get 'chosen round) (substring-no-properties (nth company-selection company-candidates)))
       (company-complete-selection)))
    (setf (alist-get 'line_after round)
          (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
    round))

(defun golden-main ()
  (let ((ui (getenv "GOLDEN_COMPLETE_UI"))
        (cases (json-read-from-string (getenv "GOLDEN_COMPLETE_CASES")))
        rounds)
    (when (equal ui "company") ; installed and loaded, as a company user has it
      (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
      (package-activate-all)
      (require 'company))
    (unless (golden-open)
      (golden-finish 1))
    (golden-put 'ui ui)
    (dotimes (i (length cases))
      (push (golden-complete-case (aref cases i) ui) rounds))
    (golden-put 'rounds (vconcat (nreverse rounds)))
    (golden-put 'ok t)
    (golden-finish 0)))

(golden-run #'golden-main)
