;;; 05_render.el --- M-x mf-lsp-render (the README's command) shows the block  -*- lexical-binding: t -*-
;; The <memory> block of magicfrog.render in *mf-lsp render*. The server's own
;; notification (magicfrog/memoryChanged) is opt-in: an agent's write while the
;; client runs warns nothing ("Unknown notification" in lsp-mode), and running
;; the command again shows the new note.
(mft-run
 (lambda ()
   (mft-fixture)
   (let ((task (mft-fx :taskmem "notes/emacs-render-task.md")))
     (mft-write task (mft-note 1 "task-render-marker"))
     (mft-write (mft-fx :memory "user/notes/emacs-render.md") (mft-note 1 "render-marker-one"))
     (mft-setup)
     (let ((b (mft-open task)))
       (unless (mft-check "client attached" (mft-attached b) "no initialized client within 10 s")
         (cl-return-from nil))
       (call-interactively #'mf-lsp-render)
       (let* ((rb (get-buffer "*mf-lsp render*"))
              (text (and rb (with-current-buffer rb (buffer-string)))))
         (mft-check "M-x mf-lsp-render shows *mf-lsp render* with the <memory> block for task T-7 and larry"
                    (and text (string-match-p "\\`<memory generation=\"[0-9a-f]+\" task=\"T-7\" agents=\"larry\"" text))
                    (or text "no *mf-lsp render* buffer"))
         (mft-check "the render buffer is shown and read-only"
                    (and rb (get-buffer-window rb) (with-current-buffer rb buffer-read-only)))
         (mft-check "the block holds the task note and the user note, task before user"
                    (and text (string-match-p "task-render-marker" text)
                         (string-match-p "render-marker-one" text)
                         (< (string-match "<task" text) (string-match "<user" text)))
                    text))
       ;; An agent writes a note (the CLI): nothing warns; the next render has it.
       (let ((w (mft-cli "write" "--dimension" "user" "--key" "notes/emacs-render-2.md"
                         "--expect-revision" "0" '(:stdin "render-marker-two\n"))))
         (mft-check "mf-lsp write (the agent's) lands" (= (car w) 0) (cdr w)))
       (mft-wait 1.5 (lambda () nil))     ; the watcher's debounce, and any notification
       (with-current-buffer b (call-interactively #'mf-lsp-render))
       (let ((text (with-current-buffer "*mf-lsp render*" (buffer-string))))
         (mft-check "rendering again shows the agent's new note"
                    (string-match-p "render-marker-two" text) text))
       (mft-check "no \"Unknown notification\" (nor eglot's \"unknown notification\") warning"
                  (not (string-match-p "[Uu]nknown notification" (mft-messages)))
                  (mft-messages))))))
