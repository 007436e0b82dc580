package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// scannedLog is how logs were read before: a scanner's lines, each decoded.
func scannedLog(b []byte) []Entry {
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxLogLine)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.How != "" {
			out = append(out, e)
		}
	}
	return out
}

func logOf(n int) []byte {
	var b bytes.Buffer
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		line, _ := json.Marshal(Entry{Time: at.Add(time.Duration(i) * time.Second), How: Observed, Revision: i + 1, Blob: fmt.Sprintf("%040x", i)})
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// parseLog reads what the scanner read, torn and blank lines, CRLF and a
// last line without its newline included.
func TestParseLogReadsAsTheScanner(t *testing.T) {
	full := string(logOf(5))
	for _, text := range []string{
		"", "\n", full, full + `{"t":"2026-01-02T03:04:05Z","how":"obs`, strings.TrimSuffix(full, "\n"),
		strings.ReplaceAll(full, "\n", "\r\n"), "\n\n" + full + "\n\nnot json\n{}\n" + full,
		full + strings.Repeat("x", maxLogLine+10) + "\n" + full,
	} {
		if got, want := parseLog([]byte(text)), scannedLog([]byte(text)); !reflect.DeepEqual(got, want) {
			t.Errorf("parseLog(%.60q…) = %d entries %v; the scanner read %d: %v", text, len(got), got, len(want), want)
		}
	}
}

// A log of 600 entries is read into one slice of them, not grown to it after
// a copy of every line (what is left is json.Unmarshal's own, per line).
func TestParseLogAllocatesItsEntriesOnce(t *testing.T) {
	b := logOf(600)
	const runs = 20
	measure := func(parse func([]byte) []Entry) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			parse(b)
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / runs
	}
	got, was := measure(parseLog), measure(scannedLog)
	if got*4 > was*3 {
		t.Errorf("parseLog of 600 entries allocates %d bytes; the scanner's read %d: want at most three quarters", got, was)
	}
	t.Logf("parseLog of 600 entries (%d bytes): %d bytes allocated, %d before", len(b), got, was)
}
