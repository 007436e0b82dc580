package secrets

import (
	"crypto/sha256"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestChunkedScanIsWholeScan: the advisory scan, read in chunks, finds what a
// scan of the whole text finds, at the same offsets and lines, in notes long
// enough to have several chunks, with secrets (a PEM block among them) in
// any paragraph and on either side of any boundary.
func TestChunkedScanIsWholeScan(t *testing.T) {
	paragraphs := []string{
		"Prefer functional array methods over for loops; name things for what they are.",
		"token: " + githubPAT,
		"aws_access_key_id = " + awsKey,
		"slack " + slackTok,
		"key:\n" + strings.TrimSuffix(privKey, "\n"),
		"example: " + githubPAT + " # gitleaks:allow",
		"- [ ] follow up on the deploy\n- [x] rotate the staging credentials",
		strings.Repeat("A long line of ordinary prose about the project's history and its decisions. ", 30),
		"## Decisions",
		"api_key =\n" + "Zx9Qm2Lp7Rt4Vn8Kc3Hs6Wd1",
		"password:\n  " + "hT7#kP2vQ9mX4zL8",
		"export GITHUB_TOKEN=\\\n" + githubPAT,
		"the secret token is",
		"    " + awsKey + " indented, under a line that opens it",
	}
	several := 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 160).Draw(t, "paragraphs")
		var b strings.Builder
		for i := range n {
			b.WriteString(rapid.SampledFrom(paragraphs).Draw(t, "paragraph"))
			b.WriteString(rapid.SampledFrom([]string{"\n\n", "\n", "\n", "\n", "\n\n\n", "\r\n"}).Draw(t, "gap"))
			if i == n-1 && rapid.Bool().Draw(t, "no final newline") {
				b.WriteString("end")
			}
		}
		text := []byte(b.String())
		whole, err := Scan(text)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunkEnds(text)) > 2 {
			several++
		}
		chunked, err := scanInChunks(text, sha256.Sum256(text))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(chunked, whole) {
			t.Fatalf("chunked %+v\nwhole   %+v", chunked, whole)
		}
	})
	if several == 0 {
		t.Error("no text had more than two chunks: the property tested nothing")
	}
}

// TestChunkBoundariesStayPut: an edit inside one chunk moves no other
// chunk's boundary, so the others are found in the memo.
func TestChunkBoundariesStayPut(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		b.WriteString("Paragraph " + strings.Repeat("x", i%37) + " about the work of the day, and what was decided.\n\n")
	}
	text := b.String()
	before := chunkEnds([]byte(text))
	if len(before) < 4 {
		t.Fatalf("%d chunks in %d bytes", len(before), len(text))
	}
	at := before[1] + 10 // inside the third chunk
	edited := text[:at] + "an inserted sentence, " + text[at:]
	after := chunkEnds([]byte(edited))
	shift := len(edited) - len(text)
	moved := 0
	for _, e := range before {
		if e > at {
			e += shift
		}
		if !contains(after, e) {
			moved++
		}
	}
	if moved > 1 {
		t.Errorf("%d of %d boundaries moved: before %v, after %v", moved, len(before), before, after)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
