package base

import "github.com/magicfrog/mf-lsp/engine"

// OpenMemory loads the tree opts names, for a front end that loads one tree
// per operation (the shell's commands); a Session loads and watches its own
// (Session.Load).
func OpenMemory(opts engine.Options) (*engine.Memory, error) { return engine.Open(opts) }
