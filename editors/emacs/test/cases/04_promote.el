;;; 04_promote.el --- "Promote to agent larry" from the code-action menu  -*- lexical-binding: t -*-
;; The note has an unsaved edit. What the user must get (issue 23, "Moves are
;; workspace edits"):
;; - lsp-mode announces resourceOperations (create, rename, delete): the
;;   promotion is a WorkspaceEdit with a RenameFile and the frontmatter edit, so
;;   lsp-mode saves the buffer, moves the file and visits the new path;
;; - eglot 1.9 announces no resource operations: the server's fallback, a
;;   command that saves the buffer's text at the new path and tells the client
;;   where the note went (a message naming the path); the README's snippet
;;   (its `eglot-execute-command' method) then visits the note there, and its
;;   `mf-lsp-promote' does the same from M-x. A buffer still left on the old
;;   path says where the note went, and saving it warns of the second copy.
;; Either way the unsaved edit is in the note at its new path, and the old path
;; is gone.

(mft-run
 (lambda ()
   (mft-fixture)
   (let* ((src (mft-fx :taskmem "notes/emacs-promote.md"))
          (dest (mft-fx :memory "agent/larry/notes/emacs-promote.md"))
          (err nil))
     (mft-write src (mft-note 2 "promote-me-marker"))
     (mft-setup)
     (let ((b (mft-open src)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (with-current-buffer b
         (goto-char (point-max))
         (insert "unsaved-edit-marker\n"))
       (let ((offered (condition-case e (mft-code-action "Promote to agent larry")
                        (error (setq err (error-message-string e)) mft-offered))))
         (mft-check "the code-action menu offers Promote to agent larry"
                    (cl-some (lambda (s) (string-match-p "Promote to agent larry" s)) offered)
                    (format "%S" offered)))
       (mft-wait 5 (lambda () (and (file-exists-p dest) (not (file-exists-p src)))))
       (mft-wait 1 (lambda () (equal (buffer-file-name (window-buffer)) dest)))
       (mft-after-command)
       (let* ((text (or (mft-read dest) ""))
              (state (format "error %S; dest %s; src %s; buffer %s; messages: %s"
                             err (file-exists-p dest) (file-exists-p src)
                             (buffer-file-name (window-buffer))
                             (let ((m (mft-messages))) (substring m (max 0 (- (length m) 400)))))))
         (mft-check "no unsaved edit is lost: it is in the buffer or in the note on disk"
                    (or (string-match-p "unsaved-edit-marker" text)
                        (and (buffer-live-p b)
                             (with-current-buffer b (string-match-p "unsaved-edit-marker" (buffer-string)))))
                    state)
         (mft-check "the note is at its new path with the unsaved edit, and the old path is gone"
                          (and (string-match-p "unsaved-edit-marker" text)
                               (string-match-p "promote-me-marker" text)
                               (not (file-exists-p src)))
                          state)
         ;; lsp-mode 8.0 leaves the moved buffer marked modified (it clears
         ;; the flag before set-visited-file-name, which sets it again): what
         ;; counts is that its text is the note on disk at the new path.
         (mft-check "the buffer follows the note: it visits the new path and holds what is on disk there"
                    (let ((nb (find-buffer-visiting dest)))
                      (and nb (eq nb (window-buffer))
                           (equal (with-current-buffer nb (buffer-string)) (mft-read dest))
                           (not (find-buffer-visiting src))))
                    state)
         (mft-check "the followed buffer has the client"
                    (let ((nb (find-buffer-visiting dest))) (and nb (mft-attached nb 3)))
                    state)
         (when (eq mft-client 'eglot)
           (mft-check "fallback: the user is told the path the note was saved at"
                      (string-match-p (regexp-quote dest) (mft-messages))
                      state)
           (mft-check "the followed buffer is not modified (its text is the note on disk)"
                      (let ((nb (find-buffer-visiting dest)))
                        (and nb (not (buffer-modified-p nb))))
                      state)
           ;; M-x mf-lsp-promote, from the followed buffer: on to user.
           (let ((user (mft-fx :memory "user/notes/emacs-promote.md")))
             (with-current-buffer (find-buffer-visiting dest)
               (condition-case e (mf-lsp-promote "user")
                 (error (mft-check "mf-lsp-promote runs without an error" nil (error-message-string e)))))
             (mft-after-command)
             (mft-check "mf-lsp-promote moves the note and the buffer follows it"
                        (and (mft-wait 5 (lambda () (equal (buffer-file-name (window-buffer)) user)))
                             (string-match-p "unsaved-edit-marker" (or (mft-read user) ""))
                             (not (file-exists-p dest))
                             (not (find-buffer-visiting dest)))
                        (format "window %S; user note %s; %s still there %s"
                                (buffer-file-name (window-buffer)) (file-exists-p user) dest (file-exists-p dest)))))))))))
