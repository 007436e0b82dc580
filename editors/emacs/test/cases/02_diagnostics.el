;;; 02_diagnostics.el --- diagnostics shown, a quick fix listed and applied  -*- lexical-binding: t -*-
;; eglot shows them in flymake; lsp-mode in its diagnostics table (and, with
;; flymake as its provider, in flymake too). Fixing the buffer, by hand or by the
;; code action, clears them without saving.
(mft-run
 (lambda ()
   (mft-fixture)
   (let ((bad (mft-fx :taskmem "notes/emacs-no-frontmatter.md"))
         (broken (mft-fx :taskmem "notes/emacs-broken-yaml.md")))
     (mft-write bad "This note was written by a plain text editor and has no frontmatter.\n")
     (mft-write broken "---\nrevision: [1\nupdated: 2026-10-20T09:12:00.000Z\n---\nBody.\n")
     (mft-setup)
     (let ((b (mft-open bad)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (let ((d (mft-wait-diag "frontmatter-missing" b)))
         (mft-check "a note without frontmatter shows frontmatter-missing on line 1"
                    (and d (= (nth 1 (car d)) 1)) (mft-diag-summary b)))
       (mft-check "flymake lists it (what the user sees in the fringe and M-x flymake-show-diagnostics-buffer)"
                  (mft-wait 5 (lambda () (cl-some (lambda (s) (string-match-p "no frontmatter\\|frontmatter" s))
                                                 (mft-flymake-codes b))))
                  (format "%S" (mft-flymake-codes b)))
       ;; The quick fix from the code-action menu.
       (let ((offered (mft-code-action "Add frontmatter")))
         (mft-check "the menu offers Add frontmatter (revision 1, updated now)"
                    (cl-some (lambda (s) (string-match-p "Add frontmatter (revision 1, updated now)" s)) offered)
                    (format "%S" offered)))
       (mft-check "applying it writes the frontmatter into the buffer"
                  (mft-wait 5 (lambda () (with-current-buffer b
                                          (string-match-p "\\`---\nrevision: 1\nupdated: " (buffer-string)))))
                  (with-current-buffer b (buffer-string)))
       (mft-check "the buffer is modified, not saved: the disk still has no frontmatter"
                  (and (buffer-modified-p b) (not (string-prefix-p "---" (mft-read bad))))
                  (mft-read bad))
       (mft-check "frontmatter-missing clears"
                  (mft-wait 8 (lambda () (not (assoc "frontmatter-missing" (mft-diagnostics b)))))
                  (mft-diag-summary b)))
     (let ((b2 (mft-open broken)))
       (mft-attached b2)
       (let ((d (mft-wait-diag "frontmatter-invalid" b2)))
         (mft-check "unparsable YAML shows frontmatter-invalid inside the block (line 2 or 3)"
                    (and d (<= 2 (nth 1 (car d)) 3)) (mft-diag-summary b2)))
       (mft-check "no key checks repeat the YAML error"
                  (not (or (assoc "revision-missing" (mft-diagnostics b2))
                           (assoc "updated-missing" (mft-diagnostics b2))))
                  (mft-diag-summary b2))))))
