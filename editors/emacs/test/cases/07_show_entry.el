;;; 07_show_entry.el --- a feature the client lacks: window/showDocument  -*- lexical-binding: t -*-
;; Neither eglot 1.9 nor lsp-mode 8.0 announces window.showDocument. "Open the
;; winning version" (the shadowed note's fix, magicfrog.showEntry) then falls
;; back to what every client has: the note's Location as the answer, and a
;; message naming its path, which the user sees in the echo area.
(mft-run
 (lambda ()
   (mft-fixture)
   (let ((user (mft-fx :memory "user/notes/emacs-winner.md"))
         (account (mft-fx :memory "account/notes/emacs-winner.md")))
     (mft-write user (mft-note 2 "The user's version."))
     (mft-write account (mft-note 5 "The account's version."))
     (mft-setup)
     (let ((b (mft-open account)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (mft-check "the shadowed note shows the shadowed diagnostic"
                  (mft-wait-diag "shadowed" b) (mft-diag-summary b))
       (let ((offered (condition-case e (mft-code-action "Open the winning version")
                        (error (mft-check "the action runs without an error" nil (error-message-string e))
                               mft-offered))))
         (mft-check "the menu offers Open the winning version"
                    (member "Open the winning version" offered) (format "%S" offered)))
       (mft-check "fallback: the user is told the winning note's path"
                  (mft-wait 5 (lambda ()
                                (string-match-p (concat "mf-lsp: the note is " (regexp-quote user))
                                                (mft-messages))))
                  (mft-messages))
       (let ((r (mft-command "magicfrog.showEntry" (list :uri (concat "file://" user)))))
         (mft-check "fallback: the answer is the note's Location (success false, its uri)"
                    (and (memq (plist-get r :success) (quote (nil :json-false)))
                         (equal (plist-get r :uri) (concat "file://" user)))
                    (format "%S" r)))))))
