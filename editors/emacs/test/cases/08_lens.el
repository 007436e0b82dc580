;;; 08_lens.el --- the shadowing code lens  -*- lexical-binding: t -*-
;; A shadowed note's first line carries the lens "shadowed by task T-7 (rev N)"
;; whose command is magicfrog.showEntry (docs/protocol.md, "Code lens").
;; - lsp-mode 8.0 (Debian's leaves `lsp-lens-enable' off; the README's snippet
;;   turns `lsp-lens-mode' on in mf-lsp's buffers) shows it as an overlay at the
;;   end of line 1; running it (the overlay's action, what a click runs) asks
;;   the server, and lsp-mode 8.0 announces `showDocument: nil', so the server
;;   answers the note's Location and a message naming its path: the buffer
;;   stays where it is.
;; - eglot 1.9 has no code lens: hover carries the same line.
(mft-run
 (lambda ()
   (mft-fixture)
   ;; The project's shared notes/progress.md is shadowed by task T-7's own.
   (let ((shadowed (mft-fx :taskmem "notes/progress.md"))
         (winner (mft-fx :taskmem "T-7/notes/progress.md")))
     (mft-setup)
     (let ((b (mft-open shadowed)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (pcase mft-client
         ('eglot
          (let ((text (mft-hover 1)))
            (mft-check "no code lens in eglot 1.9: hover carries the shadowing line"
                       (string-match-p "shadowed by task T-7" text)
                       (if (string= text "") "empty hover" text))))
         ('lsp-mode
          (with-current-buffer b
            (mft-check "the snippet turns lsp-lens-mode on in the note's buffer"
                       (bound-and-true-p lsp-lens-mode) (format "lsp-lens-mode %S" (bound-and-true-p lsp-lens-mode)))
            (let* ((ov (mft-wait 8 (lambda () (car lsp-lens--overlays))))
                   (shown (and ov (or (overlay-get ov 'after-string) (overlay-get ov 'before-string))))
                   (lens (and ov (car (overlay-get ov 'lsp--metadata)))))
              (unless (mft-check "lsp-lens shows a lens" ov "no lens overlay within 8 s")
                (cl-return-from nil))
              (mft-check "the lens is on line 1 and says what shadows the note"
                         (and (= 1 (line-number-at-pos (overlay-start ov)))
                              (string-match-p "shadowed by task T-7 (rev [0-9]+)" (substring-no-properties shown)))
                         (format "line %d: %S" (line-number-at-pos (overlay-start ov)) shown))
              (let ((action (and lens (get-text-property 0 'action lens))))
                (unless (mft-check "the lens has an action to run" (functionp action) (format "%S" lens))
                  (cl-return-from nil))
                (condition-case e (funcall action)
                  (error (mft-check "running the lens raises no error" nil (error-message-string e))))
                (mft-check "fallback: running the lens tells the user the winning note's path"
                           (mft-wait 5 (lambda ()
                                         (string-match-p (concat "mf-lsp: the note is " (regexp-quote winner))
                                                         (mft-messages))))
                           (let ((m (mft-messages))) (substring m (max 0 (- (length m) 400)))))
                (mft-check "the buffer stays on the shadowed note (no showDocument in lsp-mode 8.0)"
                           (equal (buffer-file-name (window-buffer)) shadowed)
                           (format "window shows %S" (buffer-file-name (window-buffer)))))))))))))
