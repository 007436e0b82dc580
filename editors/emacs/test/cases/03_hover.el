;;; 03_hover.el --- hover: the note's dimension and its shadowing line  -*- lexical-binding: t -*-
;; eglot shows hover through eldoc (eglot-hover-eldoc-function), lsp-mode in
;; *lsp-help* (lsp-describe-thing-at-point): each is asserted as rendered.
(mft-run
 (lambda ()
   (mft-fixture)
   (let ((task (mft-fx :taskmem "notes/emacs-hover.md"))
         (user (mft-fx :memory "user/notes/emacs-hover.md"))
         (account (mft-fx :memory "account/notes/emacs-hover.md")))
     (mft-write task (mft-note 1 "Task-specific."))
     (mft-write user (mft-note 2 "Prefer small commits.\nSee [the review skill](../skills/review.md)."))
     (mft-write account (mft-note 5 "Account-wide."))
     (mft-setup)
     (let ((b (mft-open task)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (let ((text (mft-hover 2)))
         (mft-check "hover on the task note: its path, dimension task, revision 1"
                    (and (string-match-p "task/notes/emacs-hover.md\\|notes/emacs-hover.md" text)
                         (string-match-p "dimension: .?task" text)
                         (string-match-p "revision: 1" text))
                    (if (string= text "") "empty hover" text))
         (mft-check "hover's shadowing line: effective · shadows user, account"
                    (string-match-p "effective · shadows user, account" text)
                    (if (string= text "") "empty hover" text))))
     ;; A data-dir note: the data directory's own server (no project), where
     ;; user (rev 2) beats account (rev 5).
     (let ((b (mft-open account)))
       (mft-check "a data-dir note gets a client rooted at the data directory"
                  (and (mft-attached b)
                       (equal (file-name-as-directory (expand-file-name (mft-root)))
                              (file-name-as-directory (mft-fx :data))))
                  (mft-root))
       (let ((text (mft-hover 2)))
         (mft-check "hover on the account note: shadowed by user (rev 2)"
                    (and (string-match-p "shadowed by user (rev 2)" text)
                         (string-match-p "dimension: .?account" text))
                    (if (string= text "") "empty hover" text))))
     (let ((b (mft-open user)))
       (mft-attached b)
       (let ((text (mft-hover 6 8)))
         (mft-check "hover on a link: the target's summary"
                    (and (string-match-p "user · rev 3" text) (string-match-p "Review a change" text))
                    (if (string= text "") "empty hover" text)))))))
