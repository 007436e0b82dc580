package store

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// MaxNoteSize is the largest file that is a note. Memory notes are read whole
// into every agent's context; a larger file is almost certainly not a note, and
// reading it would cost every load.
const MaxNoteSize = 4 << 20

// NoteRule names one rule of what a note may be (docs/architecture.md, "What a
// note may be"). The names are part of the published contract: a refusal's
// errcode.Data.Rule carries them.
type NoteRule string

const (
	// RuleTooLarge: the file is larger than MaxNoteSize.
	RuleTooLarge NoteRule = "too-large"
	// RuleNULByte: the text holds a NUL byte (a binary file).
	RuleNULByte NoteRule = "nul-byte"
	// RuleNotUTF8: the text is not valid UTF-8.
	RuleNotUTF8 NoteRule = "not-utf8"
	// RuleFrontmatterInBody: a write's body opens with a frontmatter block of
	// its own; written after the note's block it would leave two in one file.
	RuleFrontmatterInBody NoteRule = "frontmatter-in-body"
)

// NotANoteError is a text refused because the loader would not read it as a
// note (or, for a body, because the note it makes would not be the note
// asked for). Nothing was read as a note, or written.
type NotANoteError struct {
	Path   string   // the note or file; "" when not known
	Rule   NoteRule // the rule that failed
	Offset int      // the byte the rule failed at (the NUL, the invalid byte); -1 when none
	Size   int64    // the text's size for RuleTooLarge; -1 when not known
	// What names the text checked in messages: "the body" (CheckBody), "the
	// text" (an append); "" is the file.
	What string
}

func (e *NotANoteError) Error() string {
	s := "not a note (" + string(e.Rule) + "): " + e.Detail()
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	return s
}

// Detail says what broke the rule, without the path and the rule's name.
func (e *NotANoteError) Detail() string {
	what := e.What
	if what == "" {
		what = "the file"
	}
	switch e.Rule {
	case RuleTooLarge:
		if e.Size >= 0 {
			return fmt.Sprintf("%s is %d bytes, more than a note may be (%d bytes, %d MiB); split it", what, e.Size, MaxNoteSize, MaxNoteSize>>20)
		}
		return fmt.Sprintf("%s is larger than a note may be (%d bytes, %d MiB)", what, MaxNoteSize, MaxNoteSize>>20)
	case RuleNULByte:
		return fmt.Sprintf("%s has a NUL byte at offset %d (binary); a note is UTF-8 text", what, e.Offset)
	case RuleNotUTF8:
		return fmt.Sprintf("%s is not UTF-8 text (invalid byte at offset %d)", what, e.Offset)
	case RuleFrontmatterInBody:
		return what + " opens with a frontmatter block (--- … ---) of its own; pass the note's body only: revision and updated are set by the write"
	}
	return string(e.Rule)
}

// ErrorCode is errcode.NotANote.
func (e *NotANoteError) ErrorCode() errcode.Code { return errcode.NotANote }

// ErrorData names the rule and the path.
func (e *NotANoteError) ErrorData() errcode.Data {
	return errcode.Data{Code: errcode.NotANote, Rule: string(e.Rule), Path: e.Path}
}

// TooLarge is the RuleTooLarge refusal of the file at path, of size bytes
// (-1 when a bounded read stopped before knowing it).
func TooLarge(path string, size int64) *NotANoteError {
	return &NotANoteError{Path: path, Rule: RuleTooLarge, Offset: -1, Size: size}
}

// CheckNote is the one check of what a note may be, for a whole file: at most
// MaxNoteSize bytes, no NUL byte, valid UTF-8. The loader, import, sync, the
// importers and every note the store writes apply it; it returns nil or a
// *NotANoteError (without a Path).
func CheckNote(src []byte) error {
	if e := checkText(src); e != nil {
		return e
	}
	return nil
}

// CheckBody is CheckNote for a write's body (the note without its
// frontmatter), and the body may not open with a frontmatter block of its
// own: written after the note's block it would be a second one. Offsets are
// the body's.
func CheckBody(body []byte) error {
	if e := checkText(body); e != nil {
		e.What = "the body"
		return e
	}
	if frontmatter.Parse(body).Has() {
		return &NotANoteError{Rule: RuleFrontmatterInBody, Offset: 0, Size: -1, What: "the body"}
	}
	return nil
}

func checkText(src []byte) *NotANoteError {
	if len(src) > MaxNoteSize {
		return TooLarge("", int64(len(src)))
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return &NotANoteError{Rule: RuleNULByte, Offset: i, Size: -1}
	}
	if !utf8.Valid(src) {
		return &NotANoteError{Rule: RuleNotUTF8, Offset: invalidAt(src), Size: -1}
	}
	return nil
}

// invalidAt is the offset of src's first byte that is not UTF-8.
func invalidAt(src []byte) int {
	off := 0
	for off < len(src) {
		r, size := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	return off
}

// isNoteFile reports whether path names a note: a .md file (the store also
// writes configuration files, which the note rules do not govern).
func isNoteFile(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".md")
}

// notANote checks next, about to replace the note at display.
func notANote(display string, next []byte) error {
	if e := checkText(next); e != nil {
		e.Path = display
		return e
	}
	return nil
}
