package lsp

import "time"

// now reads the server's clock (Options.Now). Everything the server dates — the
// journal's today, the `updated` written on save — reads it here, so that a test
// can pin the time instead of sleeping until it passes.
func (s *Server) now() time.Time {
	if s.opts.Now == nil {
		return time.Now()
	}
	return s.opts.Now()
}
