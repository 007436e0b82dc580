package lsp

import "time"

// now reads the server's clock (Options.Now, handed to the session). Everything
// the server dates — the journal's today, the `updated` written on save — reads
// it, so that a test can pin the time instead of sleeping until it passes.
func (s *Server) now() time.Time { return s.sess.Now() }
