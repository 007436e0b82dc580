;;; 01_attach.el --- the README's snippet starts mf-lsp for a note and attaches  -*- lexical-binding: t -*-
(mft-run
 (lambda ()
   (mft-fixture)
   (mft-setup)
   (let* ((note (mft-fx :taskmem "notes/progress.md"))
          (buf (mft-open note)))
     (mft-check "a memory note opens in markdown-mode" (eq major-mode 'markdown-mode) major-mode)
     (unless (mft-check "the client attaches and initializes (the snippet's hook started it)"
                        (mft-attached buf) "no initialized mf-lsp connection within 10 s")
       (cl-return-from nil))
     (mft-check "the server is mf-lsp" (equal (format "%s" (mft-server-name)) "mf-lsp")
                (mft-server-name))
     (mft-check "rooted at the project (the folder holding .magicfrog/)"
                (equal (file-name-as-directory (expand-file-name (mft-root)))
                       (file-name-as-directory (mft-fx :project)))
                (mft-root))
     (let ((info (mft-command "magicfrog.sessionInfo")))
       (mft-check "sessionInfo: the project, the demo's data directory, task T-7, participant larry"
                  (and (equal (plist-get info :task) "T-7")
                       (equal (plist-get info :participant) "larry")
                       (equal (file-name-as-directory (plist-get info :dataDir))
                              (file-name-as-directory (mft-fx :data))))
                  (format "%S" info)))
     ;; A second note of the project joins the same connection.
     (let ((buf2 (mft-open (mft-fx :taskmem "style/code.md"))))
       (mft-attached buf2)
       (mft-check "a second note of the project reuses the connection"
                  (pcase mft-client
                    ('eglot (eq (with-current-buffer buf2 (eglot-current-server))
                                (with-current-buffer buf (eglot-current-server))))
                    ('lsp-mode (equal (with-current-buffer buf2 (lsp-workspaces))
                                      (with-current-buffer buf (lsp-workspaces)))))
                  "another server")))))
