package engine

import (
	"errors"

	"github.com/magicfrog/mf-lsp/engine/safefs"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// What a note may be is one check, kept with the store because every note
// write passes through the store (store.Update checks what it is about to
// write); the loader, import, sync, the journal and host importers and
// participant all ask the same function. See docs/architecture.md, "What a
// note may be".

// NotANoteError is a text that the loader would not read as a note, or a body
// that would not make the note asked for: its Rule says which rule failed.
// Its ErrorCode is errcode.NotANote; its ErrorData carries Rule and Path.
type NotANoteError = store.NotANoteError

// NoteRule names one rule of what a note may be.
type NoteRule = store.NoteRule

// The rules of what a note may be.
const (
	RuleTooLarge          = store.RuleTooLarge
	RuleNULByte           = store.RuleNULByte
	RuleNotUTF8           = store.RuleNotUTF8
	RuleFrontmatterInBody = store.RuleFrontmatterInBody
)

// CheckNote reports whether src, a whole file, can be a note (at most
// MaxNoteSize bytes, no NUL byte, UTF-8): nil, or a *NotANoteError.
func CheckNote(src []byte) error { return store.CheckNote(src) }

// CheckBody reports whether body can be a write's body: CheckNote's rules, and
// no frontmatter block of its own at its start.
func CheckBody(body []byte) error { return store.CheckBody(body) }

// AsNotANote returns err's *NotANoteError, if it is one.
func AsNotANote(err error) (*NotANoteError, bool) {
	var e *NotANoteError
	ok := errors.As(err, &e)
	return e, ok
}

// notANoteAt is CheckNote's or CheckBody's answer err with its path set.
func notANoteAt(err error, path string) error {
	if e, ok := AsNotANote(err); ok {
		e.Path = path
	}
	return err
}

// TooLarge is the RuleTooLarge refusal of a file of size bytes (-1: not
// known), for readers that stop before reading such a file.
func TooLarge(size int64) error { return store.TooLarge("", size) }

// ReadRefusal turns the error of a bounded read of a note (safefs with
// MaxNoteSize) into the too-large refusal when the file was over the limit;
// any other error is returned as it is.
func ReadRefusal(err error) error {
	if errors.Is(err, safefs.ErrTooLarge) {
		return store.TooLarge("", -1)
	}
	return err
}
