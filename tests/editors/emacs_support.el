;;; emacs_support.el --- shared by the batch Emacs tests of golden-lsp  -*- lexical-binding: t -*-
;;
;; (load (expand-file-name "emacs_support.el" (file-name-directory load-file-name)))
;; env: GOLDEN_CLIENT (eglot | lsp-mode), GOLDEN_SNIPPET (an .el file: the README's snippets for that
;;      client), GOLDEN_QUESTIONS (the questions file to open), GOLDEN_OUT (JSON result),
;;      GOLDEN_TIMEOUT (seconds per wait)
;;
;; A result alist written as JSON, a bounded wait that runs what an interactive Emacs runs between
;; commands, and the file opened as a user opens it (find-file: auto-mode-alist picks the mode,
;; whose hook starts the client) with the client waited for.

(require 'json)
(require 'cl-lib)

(defvar golden-result (list (cons 'ok :json-false)))
(defvar golden-timeout (string-to-number (or (getenv "GOLDEN_TIMEOUT") "30")))
(defvar golden-client (intern (or (getenv "GOLDEN_CLIENT") "eglot")))

(defun golden-put (key value)
  (setf (alist-get key golden-result) value))

(defun golden-finish (code)
  (with-temp-file (getenv "GOLDEN_OUT")
    (insert (json-encode golden-result)))
  (kill-emacs code))

(defun golden-wait (what pred)
  "Wait (bounded) for PRED while Emacs reads the server's messages; record whether it came true."
  (let ((deadline (+ (float-time) golden-timeout)) done)
    (while (and (not (setq done (ignore-errors (funcall pred)))) (< (float-time) deadline))
      (accept-process-output nil 0.1)
      ;; what an interactive Emacs does between commands: run idle timers (flymake, lsp-deferred)
      (dolist (timer (copy-sequence timer-idle-list))
        (when (timerp timer)
          (timer-event-handler timer))))
    (golden-put what (if done t :json-false))
    done))

(defun golden-open ()
  "Open GOLDEN_QUESTIONS with the README's snippets loaded; t once the client is connected."
  (golden-put 'client (symbol-name golden-client))
  (golden-put 'emacs emacs-version)
  ;; with -Q: the Debian ELPA packages (elpa-eglot, elpa-lsp-mode) as package.el would load them
  (add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
  (package-activate-all)
  (when (getenv "GOLDEN_NO_MARKDOWN") ; a user without markdown-mode
    (fmakunbound 'gfm-view-mode))
  (load (getenv "GOLDEN_SNIPPET") nil t)
  (when (eq golden-client 'lsp-mode)
    (require 'lsp-mode)
    ;; what pressing `i' (import the project root) at lsp-mode's first prompt does
    (lsp-workspace-folders-add (file-name-directory (getenv "GOLDEN_QUESTIONS"))))
  (find-file (getenv "GOLDEN_QUESTIONS"))
  (switch-to-buffer (current-buffer)) ; shown in a window, as eglot's hover and flymake want
  (golden-put 'major-mode (symbol-name major-mode))
  ;; eglot-ensure connects on the first command after the file opens
  (run-hooks 'post-command-hook)
  (golden-wait 'connected
               (lambda ()
                 (pcase golden-client
                   ('eglot (and (fboundp 'eglot-current-server) (eglot-current-server)))
                   ;; lsp-mode configures the buffer (completion, flymake) once initialized
                   ('lsp-mode (and (bound-and-true-p lsp-mode)
                                   (cl-some (lambda (w) (eq (lsp--workspace-status w) 'initialized))
                                            (lsp-workspaces))))))))

(defun golden-run (main)
  "Run MAIN; a Lisp error ends Emacs with status 9 and the error in the result."
  (condition-case err
      (funcall main)
    (error
     (golden-put 'error (format "%S" err))
     (golden-finish 9))))
