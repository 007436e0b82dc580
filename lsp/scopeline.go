package lsp

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

// scopeSentence says for whom a view answers (session.ScopeSentence).
func scopeSentence(sc engine.Scope, machine string) string { return session.ScopeSentence(sc, machine) }
