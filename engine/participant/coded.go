package participant

import "github.com/magicfrog/mf-lsp/engine/errcode"

// ErrorCode: a refused write is stale.
func (s *StaleWrite) ErrorCode() errcode.Code { return errcode.Stale }

// ErrorData is the note's current revision and hash (none when it does not
// exist now), what the next write expects, and its place and key as the
// path (DIMENSION[/ID]/KEY).
func (s *StaleWrite) ErrorData() errcode.Data {
	d := errcode.Data{Code: errcode.Stale, Path: s.Place + "/" + s.Key}
	if s.Current != nil {
		rev := s.Current.Revision
		d.Revision, d.Hash = &rev, s.Current.Hash
	}
	return d
}

// ErrorCode is the refusal's code: invalid-argument unless it says another.
func (r *Refusal) ErrorCode() errcode.Code {
	if r.Code == "" {
		return errcode.InvalidArgument
	}
	return r.Code
}

// ErrorCode: no such note.
func (n *NotFound) ErrorCode() errcode.Code { return errcode.NotFound }
