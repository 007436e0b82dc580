package session

import "github.com/magicfrog/mf-lsp/engine/errcode"

// codedError is a sentinel error that names its errcode.Code (errors.Is
// compares it by identity, as an errors.New value).
type codedError struct {
	code errcode.Code
	msg  string
}

func newCoded(code errcode.Code, msg string) error { return &codedError{code, msg} }

func (e *codedError) Error() string           { return e.msg }
func (e *codedError) ErrorCode() errcode.Code { return e.code }

// The session's refusals by code (docs/protocol.md, "Errors").

func (e *NotOpenError) ErrorCode() errcode.Code    { return errcode.NotFound }
func (e *NoLayerError) ErrorCode() errcode.Code    { return errcode.InvalidArgument }
func (e *NotAFolderError) ErrorCode() errcode.Code { return errcode.InvalidArgument }
