package jsonrpc

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
)

// maxHeaderLine bounds what is kept of one header line.
const maxHeaderLine = 8 << 10

// reader reads LSP base-protocol frames: header lines up to a blank line, then a body
// of Content-Length bytes. A bad frame is reported and reading goes on; only the
// input itself failing (EOF, a closed pipe) ends it.
type reader struct {
	r          *bufio.Reader
	maxMessage int64
	log        *log.Logger
	// resync: the last header announced a body over maxMessage; skip to the
	// next header before reading on. pending: the start of a header line
	// skipToHeader already consumed.
	resync  bool
	pending string
}

func newReader(r io.Reader, maxMessage int64, logger *log.Logger) *reader {
	return &reader{r: bufio.NewReaderSize(r, 64<<10), maxMessage: maxMessage, log: logger}
}

// next reads one message. Exactly one of m, bad and err is set.
func (r *reader) next() (m *message, bad *badMessage, err error) {
	body, bad, err := r.readFrame()
	if err != nil || bad != nil {
		return nil, bad, err
	}
	m, bad = decodeMessage(body)
	return m, bad, nil
}

// readFrame reads one header block and its body. A malformed header block is reported
// as bad (after resynchronizing at the next "Content-Length:" when junk precedes it);
// err is only set when the input itself fails.
func (r *reader) readFrame() (body []byte, bad *badMessage, err error) {
	if r.resync {
		if err := r.skipToHeader(); err != nil {
			return nil, nil, err
		}
		r.resync = false
	}
	length := int64(-1)
	var problems []string
	sawHeader := false
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, nil, err
		}
		if line == "" {
			if !sawHeader {
				continue // stray blank lines between messages are harmless
			}
			break
		}
		sawHeader = true
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isHeaderName(name) {
			// Junk, e.g. a body whose Content-Length was short. If a header starts
			// inside it, resynchronize there and drop what came before.
			if i := strings.Index(asciiLower(line), headerMark); i > 0 {
				r.log.Printf("skipped %d bytes of junk before a header", i)
				name, value, _ = strings.Cut(line[i:], ":")
				length, problems = -1, nil
			} else {
				problems = append(problems, fmt.Sprintf("not a header line: %q", truncate(line, 60)))
				continue
			}
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if perr != nil || n < 0 {
				problems = append(problems, fmt.Sprintf("invalid Content-Length %q", truncate(value, 30)))
				continue
			}
			length = n
		}
		// Other headers (Content-Type) are accepted and ignored: UTF-8 JSON is all LSP uses.
	}
	if length < 0 && len(problems) == 0 {
		problems = append(problems, "no Content-Length header")
	}
	if len(problems) > 0 {
		return nil, &badMessage{err: Errorf(CodeParseError, "malformed message header: %s", strings.Join(problems, "; "))}, nil
	}
	if length > r.maxMessage {
		// Not drained: a Content-Length of 2^63-1 would swallow every later
		// message. The body is skipped up to the next header instead.
		r.resync = true
		return nil, &badMessage{err: Errorf(CodeInvalidRequest, "message of %d bytes exceeds the limit of %d bytes; ignored, and skipped up to the next Content-Length header", length, r.maxMessage)}, nil
	}
	body = make([]byte, length)
	if _, err := io.ReadFull(r.r, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, err
	}
	return body, nil, nil
}

// headerMark is what skipToHeader looks for, lower case.
const headerMark = "content-length:"

// skipToHeader discards input up to the next "Content-Length:" (any case),
// wherever it is in a line, and leaves that header line to be read next. It
// holds nothing of what it skips, so an oversized body costs no memory.
func (r *reader) skipToHeader() error {
	matched, skipped := 0, int64(0)
	for {
		c, err := r.r.ReadByte()
		if err != nil {
			return err
		}
		skipped++
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == headerMark[matched]:
			matched++
		case c == headerMark[0]: // the mark's first byte occurs nowhere else in it
			matched = 1
		default:
			matched = 0
		}
		if matched == len(headerMark) {
			r.log.Printf("skipped %d bytes of an oversized message", skipped-int64(len(headerMark)))
			r.pending = "Content-Length:"
			return nil
		}
	}
}

// readLine reads one header line without its terminator, keeping at most
// maxHeaderLine bytes of it so garbage without newlines cannot exhaust memory.
func (r *reader) readLine() (string, error) {
	var buf []byte
	if r.pending != "" {
		buf, r.pending = []byte(r.pending), ""
	}
	for {
		chunk, err := r.r.ReadSlice('\n')
		if room := maxHeaderLine - len(buf); room > 0 {
			buf = append(buf, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(buf), "\r\n"), nil
	}
}

// asciiLower lowers A-Z only, so that byte offsets in the result are offsets in s
// (strings.ToLower turns invalid UTF-8 into U+FFFD, three bytes).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
