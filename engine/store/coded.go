package store

import "github.com/magicfrog/mf-lsp/engine/errcode"

// ErrorCode: a stale write is errcode.Stale for every front end.
func (e *StaleError) ErrorCode() errcode.Code { return errcode.Stale }

// ErrorData carries the disk's current revision and hash (none when the
// note does not exist, no revision when it cannot be read), so a client
// retries with them without reading the message.
func (e *StaleError) ErrorData() errcode.Data {
	d := errcode.Data{Code: errcode.Stale, Path: e.Path, Hash: e.Hash}
	if e.Exists && e.Readable {
		rev := e.Revision
		d.Revision = &rev
	}
	return d
}
