;;; 09_search.el --- M-x mf-lsp-search (the README's command) lists the hits  -*- lexical-binding: t -*-
;; magicfrog.search's hits in *mf-lsp search*, one FILE:LINE:TEXT line each
;; (grep-mode), the passage's first line at the line it starts on; another
;; agent's note with the same words is never listed.
(mft-run
 (lambda ()
   (mft-fixture)
   (let* ((passage "Reconcile the quarterly ledger before closing the month.")
          (mine (mft-fx :memory "agent/larry/notes/emacs-ledger.md"))
          (theirs (mft-fx :memory "agent/moe/notes/emacs-ledger.md"))
          (task (mft-fx :taskmem "notes/emacs-search-task.md")))
     (mft-write mine (mft-note 1 (concat "# Ledger\n\n\n" passage "\n\nAsk finance for the export.")))
     (mft-write theirs (mft-note 1 passage))
     (mft-write task (mft-note 1 "search-task"))
     (mft-setup)
     (let ((b (mft-open task)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (mf-lsp-search "reconcile the quarterly ledger")
       (let* ((sb (get-buffer "*mf-lsp search*"))
              (text (and sb (with-current-buffer sb (buffer-string))))
              ;; Four frontmatter lines: the body's line 4 is the file's line 8.
              (want (format "%s:%d:%s" mine 8 passage)))
         (mft-check "M-x mf-lsp-search lists larry's note at the passage's first line"
                    (and text (string-match-p (regexp-quote want) text))
                    (format "want %S in %S" want text))
         (mft-check "moe's note, the same words, is not listed"
                    (and text (not (string-match-p (regexp-quote theirs) text)))
                    text)
         (mft-check "the list is a grep-mode buffer"
                    (and sb (with-current-buffer sb (derived-mode-p 'grep-mode)))))))))
