;;; helpers.el --- harness for one headless Emacs run (one case, one client)  -*- lexical-binding: t -*-

;; run.sh passes:
;;   MF_CLIENT   eglot or lsp-mode           MF_README  editors/emacs/README.md
;;   MF_REPO     the repository root         MF_LSP     the mf-lsp binary
;;   MF_RESULTS  where results go            MF_CASE    the case's name
;; Results are lines "PASS\t<name>", "FAIL\t<name>\t<why>",
;; "XFAIL\t<name>\t<why>" (a check marked expected to fail, failing),
;; "XPASS\t<name>\t<why>" (such a check passing: remove its mark), then "DONE".
;;
;; The client is configured by the README's snippet for it, evaluated as the
;; README has it; what a user's Emacs would do between commands (eglot-ensure's
;; post-command hook, lsp-deferred's idle timer) is run by `mft-open'. A
;; question the editor asks (completing-read, yes-or-no-p, y-or-n-p) is
;; answered by `mft-answers' and recorded in `mft-asked', as a user would.

(require 'cl-lib)
(require 'subr-x)

(defvar mft-client (intern (or (getenv "MF_CLIENT") "eglot")))
(defvar mft-repo (getenv "MF_REPO"))
(defvar mft-lsp (getenv "MF_LSP"))
(defvar mft-case (or (getenv "MF_CASE") "case"))
(defvar mft-results (getenv "MF_RESULTS"))
(defvar mft-readme (getenv "MF_README"))
(defvar mft-failed 0)

(defun mft--record (line)
  (write-region (concat line "\n") nil mft-results 'append 'silent))

(defun mft--clean (s)
  (replace-regexp-in-string "[\r\n\t]+" " " (format "%s" (or s "assertion failed"))))

(defun mft-check (name ok &optional why)
  "Record check NAME: passed when OK is non-nil, else failed with WHY."
  (if ok
      (mft--record (format "PASS\t%s [%s]: %s" mft-case mft-client name))
    (setq mft-failed (1+ mft-failed))
    (mft--record (format "FAIL\t%s [%s]: %s\t%s" mft-case mft-client name (mft--clean why))))
  ok)

(defun mft-check-xfail (name ok why reason)
  "Record check NAME, expected to fail for REASON: XFAIL when OK is nil
\(not counted as a failure), XPASS when it holds (remove the mark)."
  (if ok
      (mft--record (format "XPASS\t%s [%s]: %s\tpasses now: remove the expected-failure mark (%s)"
                           mft-case mft-client name reason))
    (mft--record (format "XFAIL\t%s [%s]: %s\t%s -- expected: %s" mft-case mft-client name
                         (mft--clean why) reason)))
  ok)

(defun mft-finish ()
  (mft--record "DONE")
  (kill-emacs (if (> mft-failed 0) 1 0)))

(defun mft-run (body)
  "Run BODY (a function); an error is a failure, never a hang.
BODY may stop early with (cl-return-from nil)."
  (condition-case err
      (catch '--cl-block-nil-- (funcall body))
    (error (mft-check "case ran without a Lisp error" nil (format "%S" err))))
  (mft-shutdown)
  (mft-finish))

;;; Files

(defun mft-write (path content)
  (make-directory (file-name-directory path) t)
  (let ((coding-system-for-write 'utf-8-unix))
    (write-region content nil path nil 'silent)))

(defun mft-read (path)
  (when (file-exists-p path)
    (with-temp-buffer
      (let ((coding-system-for-read 'utf-8-unix))
        (insert-file-contents path))
      (buffer-string))))

(defun mft-note (revision body &optional extra)
  (format "---\nrevision: %d\nupdated: 2026-10-20T09:12:00.000Z\n%s---\n%s\n"
          revision (or extra "") body))

(defun mft-revision (text)
  "The frontmatter revision of TEXT, or nil."
  (when (and text (string-match "\\`---\r?\n\\(?:.*\n\\)*?revision:[ \t]*\\([0-9]+\\)" text))
    (string-to-number (match-string 1 text))))

(defvar mft-fx nil "The fixture: a plist :root :data :memory :project :taskmem.")

(defun mft-fixture ()
  "Copy testdata/demo (the Neovim tests' tree) into a fresh temp dir."
  (let* ((root (file-truename (make-temp-file "mf-emacs-fx" t)))
         (src (expand-file-name "testdata/demo" mft-repo)))
    (mft-check "fixture testdata/demo copied"
               (= 0 (call-process "cp" nil nil nil "-a"
                                  (expand-file-name "data" src)
                                  (expand-file-name "project" src) root))
               "cp failed")
    (setq mft-fx (list :root root
                       :data (expand-file-name "data" root)
                       :memory (expand-file-name "data/memory" root)
                       :project (expand-file-name "project" root)
                       :taskmem (expand-file-name "project/.magicfrog/memory" root)))
    mft-fx))

(defun mft-fx (key &optional rel)
  (let ((dir (plist-get mft-fx key)))
    (if rel (expand-file-name rel dir) dir)))

(defun mft-cli (&rest args)
  "Run the mf-lsp binary from the project with ARGS; the last arg may be
\(:stdin TEXT). Returns (EXIT . OUTPUT)."
  (let* ((stdin (and (consp (car (last args))) (plist-get (car (last args)) :stdin)))
         (args (if stdin (butlast args) args))
         (default-directory (file-name-as-directory (mft-fx :project))))
    (with-temp-buffer
      (let ((exit (if stdin
                      (let ((in (make-temp-file "mf-stdin" nil nil stdin)))
                        (prog1 (apply #'call-process mft-lsp in t nil args)
                          (delete-file in)))
                    (apply #'call-process mft-lsp nil t nil args))))
        (cons exit (buffer-string))))))

;;; Waiting and answering

(defun mft-wait (secs fn)
  "Run the event loop until FN returns non-nil or SECS pass; FN's value or nil."
  (let ((deadline (+ (float-time) secs)) v)
    (while (and (not (setq v (ignore-errors (funcall fn))))
                (< (float-time) deadline))
      (accept-process-output nil 0.02)
      (mft--run-idle-timers))
    v))

(defun mft--run-idle-timers ()
  "Run the one-shot idle timers (lsp-deferred's start, a client's idle work),
as an idle Emacs would: batch never idles. Repeating ones are left alone."
  (dolist (timer (copy-sequence timer-idle-list))
    (when (and (memq timer timer-idle-list) (timer--function timer)
               (not (timer--repeat-delay timer)))
      (cancel-timer timer)
      (ignore-errors (apply (timer--function timer) (timer--args timer))))))

(defvar mft-asked nil "The questions the editor asked, newest first: (PROMPT . CHOICES).")
(defvar mft-answers nil
  "How the user answers: a list of (REGEXP . ANSWER); the first whose REGEXP
matches the prompt (or a choice) answers it. ANSWER is a string (a choice whose
text contains it) or t/nil for yes-or-no questions.")

(defun mft--answer (prompt choices)
  (push (cons prompt choices) mft-asked)
  (if (and mft--pick-action (string-match-p "action" prompt))
      ;; The code-action menu: pick the action the case asked for.
      (let ((re mft--pick-action))
        (setq mft--pick-action nil mft-offered choices)
        (or (cl-find-if (lambda (c) (string-match-p re c)) choices)
            (error "no code action matching %s in %S" re choices)))
    (let ((a (cl-find-if (lambda (pair)
                           (or (string-match-p (car pair) prompt)
                               (cl-some (lambda (c) (string-match-p (car pair) c)) choices)))
                         mft-answers)))
      (cond ((null a) (error "unexpected question: %s %S" prompt choices))
            ((stringp (cdr a))
             (or (cl-find-if (lambda (c) (string-match-p (regexp-quote (cdr a)) c)) choices)
                 (error "no choice %S in %S" (cdr a) choices)))
            (t (cdr a))))))

(defvar mft--pick-action nil "The regexp of the code action the user picks next.")
(defvar mft-offered nil "The titles the last code-action menu offered.")

(defun mft--choices (collection)
  (cond ((hash-table-p collection) (hash-table-keys collection))
        ((functionp collection) (all-completions "" collection))
        (t (mapcar (lambda (c) (format "%s" (if (consp c) (car c) c))) collection))))

(defun mft-install-answers ()
  (advice-add 'completing-read :override
              (lambda (prompt collection &rest _)
                (mft--answer prompt (mft--choices collection))))
  (advice-add 'yes-or-no-p :override (lambda (prompt) (mft--answer prompt nil)))
  (advice-add 'y-or-n-p :override (lambda (prompt) (mft--answer prompt nil)))
  ;; "FILE changed on disk; really edit the buffer?" (y, n, r): the answer is
  ;; yes (go on editing) unless an answer says otherwise; signalling is "n".
  (advice-add 'ask-user-about-supersession-threat :override
              (lambda (fn)
                (unless (mft--answer (format "%s changed on disk; really edit the buffer?" fn) nil)
                  (signal 'file-supersession (list "File changed on disk" fn))))))

(defun mft-asked-matching (regexp)
  (cl-find-if (lambda (q) (string-match-p regexp (car q))) mft-asked))

(defun mft-messages ()
  "What the echo area showed, as *Messages* and *Warnings* hold it."
  (concat (with-current-buffer (messages-buffer) (buffer-string))
          (if (get-buffer "*Warnings*") (with-current-buffer "*Warnings*" (buffer-string)) "")))

;;; The client

(defun mft--snippet (name)
  "The elisp of README block `<!-- snippet: NAME -->'."
  (with-temp-buffer
    (insert-file-contents mft-readme)
    (goto-char (point-min))
    (unless (search-forward (format "<!-- snippet: %s -->" name) nil t)
      (error "README has no snippet %s" name))
    (re-search-forward "^```elisp\n")
    (let ((beg (point)))
      (re-search-forward "^```$")
      (buffer-substring-no-properties beg (match-beginning 0)))))

(defun mft--eval-string (code)
  (with-temp-buffer
    (insert code)
    (goto-char (point-min))
    (condition-case nil
        (while t (eval (read (current-buffer)) t))
      (end-of-file nil))))

(defun mft--load-path (pkg)
  (let ((dir (car (last (file-expand-wildcards
                         (format "/usr/share/emacs/site-lisp/elpa/%s-[0-9]*" pkg))))))
    (when dir
      (add-to-list 'load-path dir)
      ;; What package-initialize would load: the package's autoloads.
      (let ((autoloads (expand-file-name (format "%s-autoloads.el" pkg) dir)))
        (when (file-exists-p autoloads) (load autoloads nil t))))))

(defun mft-setup ()
  "Point Emacs and the server at the fixture and load the README's snippet."
  ;; -Q drops Debian's site-lisp: put the packages on load-path.
  (dolist (p '("markdown-mode" "eglot" "lsp-mode" "dash" "f" "s" "ht" "spinner" "lv"))
    (mft--load-path p))
  (setq user-emacs-directory (file-name-as-directory (mft-fx :root ".emacs.d"))
        make-backup-files nil create-lockfiles nil auto-save-default nil
        inhibit-message nil)
  ;; The server the snippet names ("mf-lsp") is the freshly built one.
  (setq exec-path (cons (file-name-directory mft-lsp) exec-path))
  (setenv "PATH" (concat (file-name-directory mft-lsp) path-separator (getenv "PATH")))
  (setenv "MAGICFROG_HOME" (mft-fx :data))
  (setenv "MAGICFROG_AGENT" nil)
  (require 'markdown-mode)
  (pcase mft-client
    ('eglot
     (require 'eglot)
     ;; eglot-ensure connects from the command loop: wait for it there.
     (setq eglot-sync-connect t eglot-autoreconnect nil))
    ('lsp-mode
     (require 'lsp-mode)
     (setq lsp-session-file (mft-fx :root ".lsp-session")
           lsp-auto-guess-root t           ; the README's "i" at the root question
           lsp-restart 'ignore
           lsp-keep-workspace-alive nil
           lsp-enable-file-watchers nil
           lsp-headerline-breadcrumb-enable nil
           lsp-modeline-code-actions-enable nil
           lsp-modeline-diagnostics-enable nil
           lsp-signature-auto-activate nil
           lsp-enable-snippet nil
           lsp-diagnostics-provider :flymake
           lsp-warn-no-matched-clients nil)))
  (mft--eval-string (mft--snippet (symbol-name mft-client)))
  (mft-install-answers))

(defun mft-open (path)
  "Visit PATH as a user would, and let the client attach."
  (find-file path)
  ;; What the command loop would run after C-x C-f: eglot-ensure's
  ;; post-command hook, lsp-deferred's idle timer.
  (mft-after-command)
  (current-buffer))

(defun mft-after-command ()
  "What the command loop runs after a command, in the buffer it left current
\(eglot-ensure's post-command hook connects a buffer a command visited)."
  (with-current-buffer (window-buffer)
    (run-hooks 'post-command-hook)
    (mft--run-idle-timers)))

(defun mft-attached (&optional buffer secs)
  "Wait until the client has initialized for BUFFER; non-nil when it has."
  (with-current-buffer (or buffer (current-buffer))
    (mft-wait (or secs 10)
              (lambda ()
                (pcase mft-client
                  ('eglot (and (eglot-current-server) eglot--managed-mode
                               (jsonrpc-running-p (eglot-current-server))))
                  ('lsp-mode (and lsp-mode (lsp-workspaces)
                                  (eq (lsp--workspace-status (car (lsp-workspaces))) 'initialized))))))))

(defun mft-server-name ()
  (pcase mft-client
    ('eglot (and (eglot-current-server) (plist-get (eglot--server-info (eglot-current-server)) :name)))
    ('lsp-mode (and (lsp-workspaces) (lsp--workspace-server-id (car (lsp-workspaces)))))))

(defun mft-root ()
  (pcase mft-client
    ('eglot (and (eglot-current-server) (project-root (eglot--project (eglot-current-server)))))
    ('lsp-mode (and (lsp-workspaces) (lsp--workspace-root (car (lsp-workspaces)))))))

(defun mft-plist (v)
  "V with lsp-mode's hash tables as plists (eglot's JSON already is)."
  (cond ((hash-table-p v)
         (let (out)
           (maphash (lambda (k x) (setq out (append out (list (intern (concat ":" k)) (mft-plist x))))) v)
           out))
        ((vectorp v) (vconcat (mapcar #'mft-plist v)))
        (t v)))

(defun mft-command (command &optional arg)
  "Run server COMMAND with ARG (a plist) through the client; its result as a plist."
  (let ((args (if arg (vector arg) [])))
    (mft-plist
     (pcase mft-client
       ('eglot (eglot-execute-command (eglot--current-server-or-lose) (intern command) args))
       ('lsp-mode (lsp-request "workspace/executeCommand" (list :command command :arguments args)))))))

(defun mft-shutdown ()
  (ignore-errors
    (pcase mft-client
      ('eglot (dolist (s (cl-loop for ss being the hash-values of eglot--servers-by-project
                                  append ss))
                (let ((eglot-autoshutdown t)) (eglot-shutdown s nil 2))))
      ('lsp-mode (dolist (w (lsp--session-workspaces (lsp-session)))
                   (lsp-workspace-shutdown w))))))

;;; Features, as the user sees them

(defun mft-diagnostics (&optional buffer)
  "The diagnostics the client shows in BUFFER: a list of (CODE LINE TEXT)."
  (with-current-buffer (or buffer (current-buffer))
    (pcase mft-client
      ('eglot
       (flymake-start)
       (mapcar (lambda (d)
                 (let ((lsp (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))))
                   (list (format "%s" (plist-get lsp :code))
                         (line-number-at-pos (flymake-diagnostic-beg d))
                         (flymake-diagnostic-text d))))
               (flymake-diagnostics)))
      ('lsp-mode
       (mapcar (lambda (d)
                 (list (format "%s" (lsp:diagnostic-code? d))
                       (1+ (lsp:position-line (lsp:range-start (lsp:diagnostic-range d))))
                       (lsp:diagnostic-message d)))
               (gethash (lsp--fix-path-casing buffer-file-name) (lsp-diagnostics t)))))))

(defun mft-flymake-codes (&optional buffer)
  "The texts flymake shows (both clients report to flymake here)."
  (with-current-buffer (or buffer (current-buffer))
    (flymake-start)
    (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))

(defun mft-wait-diag (code &optional buffer secs)
  "Wait for a diagnostic with CODE in BUFFER; the list of them, or nil."
  (mft-wait (or secs 8)
            (lambda ()
              (cl-remove-if-not (lambda (d) (equal (car d) code))
                                (mft-diagnostics buffer)))))

(defun mft-diag-summary (&optional buffer)
  (let ((ds (ignore-errors (mft-diagnostics buffer))))
    (if ds (mapconcat (lambda (d) (format "%s@%d:%s" (nth 0 d) (nth 1 d) (nth 2 d))) ds " | ")
      "no diagnostics")))

(defun mft-goto (line &optional col)
  (goto-char (point-min))
  (forward-line (1- line))
  (forward-char (or col 0)))

(defun mft-hover (line &optional col)
  "What the user is shown as hover at LINE (1-based), COL: eglot's eldoc
text, lsp-mode's *lsp-help* buffer."
  (mft-goto line col)
  (pcase mft-client
    ('eglot
     (let (info done)
       (eglot-hover-eldoc-function (lambda (s &rest _) (setq info s done t)))
       (mft-wait 5 (lambda () done))
       (or info "")))
    ('lsp-mode
     (when (get-buffer "*lsp-help*") (kill-buffer "*lsp-help*"))
     (let ((buf (current-buffer)))
       (lsp-describe-thing-at-point)
       (set-buffer buf))
     (if (get-buffer "*lsp-help*")
         (with-current-buffer "*lsp-help*" (buffer-substring-no-properties (point-min) (point-max)))
       ""))))

(defun mft-code-action (title-regexp &optional line)
  "Open the code-action menu at LINE (default 1) as the user does
\(eglot-code-actions, lsp-execute-code-action) and pick the action whose title
matches TITLE-REGEXP. Returns the titles offered."
  (mft-goto (or line 1))
  (setq mft--pick-action title-regexp mft-offered nil)
  (unwind-protect
      ;; From the keyboard (M-x), not a mouse click: batch leaves
      ;; last-nonmenu-event nil, which eglot reads as a click (a popup menu).
      (let ((last-nonmenu-event ?\r))
        (pcase mft-client
          ('eglot (eglot-code-actions (point) nil nil t))
          ('lsp-mode (call-interactively #'lsp-execute-code-action))))
    (setq mft--pick-action nil))
  mft-offered)

(provide 'mft-helpers)
;;; helpers.el ends here
