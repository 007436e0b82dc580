// Package secrets finds secrets in note text with gitleaks' detector and its
// default rules, so that nothing with a detected secret leaves the machine
// (SPEC §9) and the editor and `mf-lsp check` flag it before a sync does.
//
// A line that carries the conventional "gitleaks:allow" marker is not
// reported: that is how a user says "this is not a secret" (an example
// token in a note about token formats).
package secrets

import (
	"bytes"
	"crypto/sha256"
	"sort"
	"strings"
	"sync"

	"github.com/magicfrog/mf-lsp/engine/secrets/scancache"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// Finding is one secret in a text.
type Finding struct {
	Rule        string // gitleaks rule id: "github-pat", "aws-access-token", …
	Description string
	Line        int // 1-based
	// Start and End are the byte offsets of the secret in the text.
	Start, End int
}

var (
	once        sync.Once
	detector    *detect.Detector
	detectorErr error
)

// defaultDetector parses gitleaks' default rules and builds the keyword
// prefilter once per process: that takes about 10 ms, a scan of a note a
// fraction of one. Detect keeps no state between calls (it returns its
// findings; only AddFinding, which we never call, accumulates), so one
// detector serves every goroutine.
func defaultDetector() (*detect.Detector, error) {
	once.Do(func() {
		detector, detectorErr = detect.NewDetectorDefaultConfig()
	})
	return detector, detectorErr
}

// Scan returns the secrets gitleaks' default rules find in text, in order.
// An error means the rules could not be loaded (a broken build), never that
// the text is bad. Sync's gate calls Scan: it trusts no file for "no secret
// here", only this process's own scans.
func Scan(text []byte) ([]Finding, error) {
	return scan(text, sha256.Sum256(text))
}

// ScanAdvisory is Scan for findings that only advise (the editor's and
// `mf-lsp check`'s): a text that this build's rules found clean in an
// earlier process is not scanned again when there is a scan cache c (the
// nil *Cache is none). The detector costs about 300 µs a note, nine tenths
// of a cold check of an unchanged tree.
func ScanAdvisory(c *scancache.Cache, text []byte) ([]Finding, error) {
	return ScanAdvisoryHashed(c, text, sha256.Sum256(text))
}

// ScanAdvisoryHashed is ScanAdvisory for a text whose SHA-256 the caller
// already has (a loaded note's Hash): sum must be sha256.Sum256(text), the
// key its clean verdict is kept under. A check of an unchanged tree then
// hashes no note a second time.
func ScanAdvisoryHashed(c *scancache.Cache, text []byte, sum [32]byte) ([]Finding, error) {
	if c.Clean(sum) {
		return nil, nil
	}
	out, err := scanInChunks(text, sum)
	if err == nil && len(out) == 0 {
		c.AddClean(sum)
	}
	return out, err
}

// An editor scans the open note again after every change, and the detector's
// regular expressions cost about half a millisecond a kilobyte: a note of 45
// KB took 20 ms a keystroke, on a CPU the requests behind the edit wanted. So
// the advisory scan reads a long text in chunks, each remembered by its own
// hash: an edit scans again only the chunk it falls in. A chunk ends at the
// start of a line chosen by that line's first bytes, not by where the chunk
// began, so an edit moves no boundary but its own chunk's. gitleaks' rules
// match within a line but for two shapes, and no boundary splits those: a
// PEM block (from its BEGIN line to its END line) and a value continued on
// the next line (a line ending in ':', '=', ',', '>', '|' or '\\', or a next
// line that is indented or blank). Sync's gate (Scan) still scans the whole
// text.
const (
	minChunk = 2 << 10  // no boundary before this many bytes of a chunk
	maxChunk = 16 << 10 // past this many, a boundary at the first line allowed
)

// chunkEnds are the offsets where text's chunks end, the last len(text).
func chunkEnds(text []byte) []int {
	var ends []int
	start, inPEM := 0, false
	for i := 0; i < len(text); {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		line, next := text[i:i+j], i+j+1
		if bytes.Contains(line, []byte("-----BEGIN")) {
			inPEM = true
		}
		if bytes.Contains(line, []byte("-----END")) {
			inPEM = false
		}
		i = next
		if inPEM || next-start < minChunk || next >= len(text) || continued(line, text[next:]) {
			continue
		}
		if next-start >= maxChunk || boundaryAt(text[next:]) {
			ends = append(ends, next)
			start = next
		}
	}
	return append(ends, len(text))
}

// continued reports whether line's value may go on in the line after it.
func continued(line, rest []byte) bool {
	line = bytes.TrimRight(line, " \t\r")
	if len(line) == 0 {
		return false
	}
	switch line[len(line)-1] {
	case ':', '=', ',', '>', '|', '\\':
		return true
	}
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

// boundaryAt decides by the first bytes of a line whether a chunk may end
// before it: about one line in eight.
func boundaryAt(rest []byte) bool {
	h := uint32(2166136261)
	for i := 0; i < len(rest) && i < 32 && rest[i] != '\n'; i++ {
		h = (h ^ uint32(rest[i])) * 16777619
	}
	return h%8 == 0
}

// scanInChunks is scan over text's chunks (chunkEnds), their findings moved
// to text's offsets and lines; a text of one chunk is scanned whole.
func scanInChunks(text []byte, sum [32]byte) ([]Finding, error) {
	ends := chunkEnds(text)
	if len(ends) == 1 {
		return scan(text, sum)
	}
	var out []Finding
	start, line := 0, 0
	for _, end := range ends {
		chunk := text[start:end]
		fs, err := scan(chunk, sha256.Sum256(chunk))
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			f.Line += line
			f.Start += start
			f.End += start
			out = append(out, f)
		}
		line += bytes.Count(chunk, []byte{'\n'})
		start = end
	}
	return out, nil
}

func scan(text []byte, key [32]byte) (out []Finding, err error) {
	d, err := defaultDetector()
	if err != nil {
		return nil, err
	}
	if fs, ok := cached(key); ok {
		return fs, nil
	}
	defer func() { remember(key, out) }()
	lines := lineStarts(text)
	for _, f := range d.DetectBytes(text) {
		line := f.StartLine + 1
		if line < 1 || line > len(lines) {
			continue
		}
		start := lines[line-1]
		lineEnd := len(text)
		if line < len(lines) {
			lineEnd = lines[line]
		}
		fd := Finding{Rule: f.RuleID, Description: f.Description, Line: line, Start: start, End: lineEnd}
		if i := bytes.Index(text[start:lineEnd], []byte(f.Secret)); f.Secret != "" && i >= 0 {
			fd.Start, fd.End = start+i, start+i+len(f.Secret)
		}
		fd.End = trimEOL(text, fd.Start, fd.End)
		out = append(out, fd)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out, nil
}

// The detector costs about 100 µs a note however short (it walks its 222
// rules' keywords for every text), and an editor checks the same notes again
// and again: results are remembered by content hash.
var cache = struct {
	sync.Mutex
	m map[[32]byte][]Finding
}{m: map[[32]byte][]Finding{}}

const cacheSize = 8192

func cached(key [32]byte) ([]Finding, bool) {
	cache.Lock()
	defer cache.Unlock()
	fs, ok := cache.m[key]
	return append([]Finding(nil), fs...), ok
}

func remember(key [32]byte, fs []Finding) {
	cache.Lock()
	defer cache.Unlock()
	if len(cache.m) >= cacheSize {
		clear(cache.m) // simpler than an LRU, and a refill costs one scan per note
	}
	cache.m[key] = append([]Finding(nil), fs...)
}

// lineStarts are the byte offsets where each line begins.
func lineStarts(b []byte) []int {
	out := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			out = append(out, i+1)
		}
	}
	return out
}

func trimEOL(b []byte, start, end int) int {
	for end > start && (b[end-1] == '\n' || b[end-1] == '\r') {
		end--
	}
	return end
}

// Allowed reports whether a line carries the gitleaks:allow marker.
func Allowed(line string) bool { return strings.Contains(line, "gitleaks:allow") }
