package rollup

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// TranscriptPrefix starts the `sources:` key of a transcript: "transcripts/"
// and the file's path inside the transcript folder.
const TranscriptPrefix = journal.TranscriptPrefix

// maxTranscriptBytes is the largest transcript file read; a larger one is
// reported and skipped.
const maxTranscriptBytes = 256 << 20

// TranscriptPart is what one transcript file says on one day: the refine of
// that day reads Text as a source keyed Key and records Hash (of Text, not of
// the file, so a session that goes on the next day does not make this day's
// refine stale).
type TranscriptPart struct {
	Key  string
	Text string
	Hash string
}

// Transcripts are the session transcripts of a folder, by day: Claude Code's
// and Codex's JSONL session logs (the user's and the assistant's text; tool
// calls and their output left out) and Markdown or text files. A file that
// cannot be read or parsed is listed in Skipped with why, never fatal.
type Transcripts struct {
	Dir     string
	byDay   map[journal.Day][]TranscriptPart
	Skipped []string // "path: why"
	Files   int      // transcript files read
}

// Day returns the parts of day, by key.
func (t *Transcripts) Day(d journal.Day) []TranscriptPart {
	if t == nil {
		return nil
	}
	return t.byDay[d]
}

// LoadTranscripts reads every transcript under dir (recursively; hidden
// files and folders and symbolic links are not followed). A message belongs to
// the day of its time stamp in loc; a Markdown or text file to the date in its
// name (…2026-02-17…), else to the day of its modification time. Files of
// other kinds are ignored.
func LoadTranscripts(dir string, loc *time.Location) (*Transcripts, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("transcripts: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("transcripts: %s is not a folder", dir)
	}
	t := &Transcripts{Dir: dir, byDay: map[journal.Day][]TranscriptPart{}}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Skipped = append(t.Skipped, fmt.Sprintf("%s: %v", p, err))
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		if ext != ".jsonl" && ext != ".md" && ext != ".markdown" && ext != ".txt" {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		key := TranscriptPrefix + filepath.ToSlash(rel)
		days, why := readTranscript(p, ext, loc)
		if why != "" {
			t.Skipped = append(t.Skipped, rel+": "+why)
			return nil
		}
		t.Files++
		for day, text := range days {
			sum := sha256.Sum256([]byte(text))
			t.byDay[day] = append(t.byDay[day], TranscriptPart{Key: key, Text: text, Hash: hex.EncodeToString(sum[:])})
		}
		return nil
	})
	for _, parts := range t.byDay {
		sort.Slice(parts, func(i, j int) bool { return parts[i].Key < parts[j].Key })
	}
	return t, err
}

var dateInName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d{4}-\d{2}-\d{2})`) })

// readTranscript returns a file's text by day, or why it was skipped.
func readTranscript(path, ext string, loc *time.Location) (map[journal.Day]string, string) {
	f, err := os.OpenFile(path, os.O_RDONLY|safefs.ONonblock, 0) // a FIFO must not block
	if err != nil {
		return nil, err.Error()
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err.Error()
	}
	if !info.Mode().IsRegular() {
		return nil, safefs.Kind(info.Mode()) + ", not a transcript: never read"
	}
	if info.Size() > maxTranscriptBytes {
		return nil, fmt.Sprintf("%d bytes, more than the %d MiB a transcript may have", info.Size(), maxTranscriptBytes>>20)
	}
	if ext == ".jsonl" {
		return readJSONL(f, info.ModTime(), loc)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err.Error()
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, "not UTF-8 text"
	}
	day := journal.DayOf(info.ModTime().In(loc))
	if m := dateInName().FindString(filepath.Base(path)); m != "" {
		if d, err := journal.ParseDay(m); err == nil {
			day = d
		}
	}
	return map[journal.Day]string{day: string(data)}, ""
}

// jsonlLine is the part of a Claude Code or Codex log line we read. Claude
// Code: {"type":"user"|"assistant","message":{"role","content"},"timestamp"}.
// Codex: {"timestamp","type":"response_item","payload":{"type":"message",
// "role","content":[{"type":"input_text"|"output_text","text"}]}}, and the
// older form without the wrapper.
type jsonlLine struct {
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Message   *jsonlMessage   `json:"message"`
	Payload   *jsonlMessage   `json:"payload"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	IsMeta    bool            `json:"isMeta"`
}

type jsonlMessage struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// messageText is the text of a message's content: a string, or the "text"
// parts of a list (text, input_text, output_text); tool use, tool results and
// images are left out.
func messageText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			if strings.TrimSpace(p.Text) != "" {
				out = append(out, p.Text)
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// readJSONL reads a Claude Code or Codex session log: each user or assistant
// message becomes "### role (HH:MM)" and its text, under the day of its time
// stamp (a line without one takes the last seen, else the file's modification
// time). A file with no line that parses as JSON is skipped; a file with JSON
// but no message is a session without text (no parts, not skipped).
func readJSONL(r io.Reader, mod time.Time, loc *time.Location) (map[journal.Day]string, string) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := map[journal.Day]*strings.Builder{}
	last := mod
	lines, good := 0, 0
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			lines++
			var l jsonlLine
			if json.Unmarshal(line, &l) == nil {
				good++
				if ts, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
					last = ts
				}
				role, text := "", ""
				switch {
				case l.Message != nil && (l.Type == "user" || l.Type == "assistant") && !l.IsMeta:
					role, text = l.Message.Role, messageText(l.Message.Content)
				case l.Payload != nil && l.Type == "response_item" && l.Payload.Type == "message":
					role, text = l.Payload.Role, messageText(l.Payload.Content)
				case l.Type == "message" && l.Role != "":
					role, text = l.Role, messageText(l.Content)
				}
				text = strings.TrimSpace(text)
				if (role == "user" || role == "assistant") && text != "" && !isHarnessText(text) {
					at := last.In(loc)
					day := journal.DayOf(at)
					b := out[day]
					if b == nil {
						b = &strings.Builder{}
						out[day] = b
					}
					fmt.Fprintf(b, "### %s (%s)\n\n%s\n\n", role, at.Format("15:04"), text)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err.Error()
		}
	}
	if lines > 0 && good == 0 {
		return nil, "not a JSONL session log: no line parses as JSON"
	}
	days := make(map[journal.Day]string, len(out))
	for d, b := range out {
		days[d] = b.String()
	}
	return days, ""
}

// isHarnessText reports text the agent's harness puts into a user turn
// (Codex's <environment_context>, <user_instructions>; Claude Code's command
// wrappers): not what anyone said.
func isHarnessText(s string) bool {
	for _, p := range []string{"<environment_context>", "<user_instructions>", "<command-name>", "<local-command-stdout>", "<system-reminder>"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TranscriptsDir resolves the transcript folder: the flag when given, else the
// project config's "transcripts"; "~/" is the home folder and a relative path
// is relative to the project (the flag's, to the working directory). "" means
// none.
func TranscriptsDir(flag, configured, projectDir string) (string, error) {
	p, base := flag, ""
	if p == "" {
		p, base = configured, projectDir
	}
	if p == "" {
		return "", nil
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("transcripts %q: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	return filepath.Abs(p)
}

// PromoteAuto reads the project config's "promote": true for "auto", false for
// "" and "review", an error naming the value otherwise.
func PromoteAuto(configured string) (bool, error) {
	switch configured {
	case "auto":
		return true, nil
	case "", "review":
		return false, nil
	}
	return false, fmt.Errorf(`.magicfrog/config.json: "promote": %q: want "auto" (rollups write proposed lessons into MEMORY.md) or "review" (the default: they are only proposed)`, configured)
}
