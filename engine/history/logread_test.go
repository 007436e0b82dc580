package history

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// logLine is one line of a log, as appendLine writes it.
func logLine(i int) []byte {
	line, _ := json.Marshal(Entry{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Second), How: Observed, Revision: i, Blob: fmt.Sprintf("%040x", i)})
	return append(line, '\n')
}

// A log read again after appends, a torn last line completed later, a
// truncation or a replacement of the file reads as a parse of the whole file.
func TestLogReadsAsTheWholeFile(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp(t.TempDir(), "log")
		if err != nil {
			rt.Fatal(err)
		}
		s := For(root)
		if err := s.makeDir(); err != nil {
			rt.Fatal(err)
		}
		file := filepath.Join(s.Dir(), filepath.FromSlash(logName("a.md")))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			rt.Fatal(err)
		}
		var text []byte // what the file holds
		var torn []byte // the rest of a torn last line
		next := 0
		write := func(b []byte) {
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				rt.Fatal(err)
			}
			if _, err := f.Write(b); err != nil {
				rt.Fatal(err)
			}
			f.Close()
			text = append(text, b...)
		}
		for step := range rapid.IntRange(1, 12).Draw(rt, "steps") {
			op := rapid.SampledFrom([]string{"append", "torn", "complete", "junk", "truncate", "replace", "remove"}).Draw(rt, fmt.Sprint("op ", step))
			switch op {
			case "append":
				for range rapid.IntRange(1, 4).Draw(rt, "lines") {
					write(torn)
					torn = nil
					next++
					write(logLine(next))
				}
			case "torn":
				if torn == nil {
					next++
					line := logLine(next)
					cut := rapid.IntRange(1, len(line)-1).Draw(rt, "cut")
					write(line[:cut])
					torn = line[cut:]
				}
			case "complete":
				write(torn)
				torn = nil
			case "junk":
				write(torn)
				torn = nil
				write([]byte(rapid.SampledFrom([]string{"\n", "not json\n", "{}\n", "\r\n"}).Draw(rt, "junk")))
			case "truncate":
				n := rapid.IntRange(0, len(text)).Draw(rt, "to")
				if err := os.Truncate(file, int64(n)); err != nil && !os.IsNotExist(err) {
					rt.Fatal(err)
				}
				text, torn = text[:n], nil
			case "replace":
				var b []byte
				for range rapid.IntRange(0, 6).Draw(rt, "new lines") {
					next++
					b = append(b, logLine(next)...)
				}
				tmp := file + ".tmp"
				if err := os.WriteFile(tmp, b, 0o644); err != nil {
					rt.Fatal(err)
				}
				if err := os.Rename(tmp, file); err != nil {
					rt.Fatal(err)
				}
				text, torn = b, nil
			case "remove":
				os.Remove(file)
				text, torn = nil, nil
			}
			got, err := s.Log("a.md")
			if err != nil {
				rt.Fatal(err)
			}
			if want := parseLog(text); !reflect.DeepEqual(got, want) {
				rt.Fatalf("after %s: Log read %d entries %v; the whole file parses as %d: %v", op, len(got), got, len(want), want)
			}
		}
	})
}

// A log read again parses only the lines appended since: the bytes handed
// to the parser are the new line's, and what the read allocates is a
// fraction of a whole parse of the log.
func TestLogParsesOnlyWhatWasAppended(t *testing.T) {
	s := For(t.TempDir())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 600 {
		if err := s.appendEntry("a.md", Entry{Time: at.Add(time.Duration(i) * time.Second), How: Observed, Revision: i + 1, Blob: fmt.Sprintf("%040x", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Log("a.md"); err != nil {
		t.Fatal(err)
	}
	whole, err := s.readFile(logName("a.md"))
	if err != nil {
		t.Fatal(err)
	}
	wholeAllocs := testing.AllocsPerRun(5, func() { parseLog(whole) })
	i := 600
	var parsed []int64
	allocs := testing.AllocsPerRun(5, func() {
		line, _ := json.Marshal(Entry{Time: at.Add(time.Duration(i) * time.Second), How: Written, Revision: i + 1, Blob: fmt.Sprintf("%040x", i)})
		i++
		if err := s.appendEntry("a.md", Entry{Time: at.Add(time.Duration(i-1) * time.Second), How: Written, Revision: i, Blob: fmt.Sprintf("%040x", i-1)}); err != nil {
			t.Fatal(err)
		}
		before := s.logs.parsed.Load()
		log, err := s.Log("a.md")
		if err != nil || len(log) != i {
			t.Fatalf("Log: %d entries, %v; want %d", len(log), err, i)
		}
		if got := s.logs.parsed.Load() - before; got != int64(len(line)+1) {
			parsed = append(parsed, got)
		}
	})
	if len(parsed) > 0 {
		t.Errorf("a read after one appended line parsed %v bytes; want the appended line's only (about %d)", parsed, len(logLine(600)))
	}
	// The append itself, the entry's encoding and the read's file handles
	// allocate too; a whole parse of 600 lines allocates thousands.
	if allocs*4 > wholeAllocs {
		t.Errorf("a read after one appended line allocates %.0f times; a whole parse %.0f: want at most a quarter", allocs, wholeAllocs)
	}
	t.Logf("append and read: %.0f allocations; a whole parse of 600 lines: %.0f", allocs, wholeAllocs)
}
