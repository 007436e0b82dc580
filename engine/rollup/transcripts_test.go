package rollup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// A Claude Code session log: a user turn, an assistant turn with text and a
// tool call, the tool's result (a user turn of tool_result), and a meta line.
const claudeLog = `{"type":"summary","summary":"Telegram bot","leafUuid":"x"}
{"type":"user","message":{"role":"user","content":"Fix the webhook timeout, please."},"timestamp":"2026-02-17T09:00:00.000Z","uuid":"1"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Decision: raise the webhook timeout to 30 s and retry twice."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]},"timestamp":"2026-02-17T09:01:00.000Z","uuid":"2"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"TOOL OUTPUT: ok example.com/bot 0.3s"}]},"timestamp":"2026-02-17T09:02:00.000Z","uuid":"3"}
{"type":"user","isMeta":true,"message":{"role":"user","content":"META: caveat"},"timestamp":"2026-02-17T09:02:30.000Z","uuid":"4"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Lesson: always pin dependency versions before deploying."}]},"timestamp":"2026-02-18T10:00:00.000Z","uuid":"5"}
`

// A Codex rollout: session meta, the harness's environment context, a user
// and an assistant message, a function call and its output.
const codexLog = `{"timestamp":"2026-02-17T11:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/src/bot"}}
{"timestamp":"2026-02-17T11:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/src/bot</cwd>\n</environment_context>"}]}}
{"timestamp":"2026-02-17T11:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Add a retry to the credential vault client."}]}}
{"timestamp":"2026-02-17T11:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}
{"timestamp":"2026-02-17T11:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"TOOL OUTPUT: vault.go"}}
{"timestamp":"2026-02-17T11:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Built the retry for the credential vault client (vault/client.go)."}]}}
`

func writeTranscripts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"claude/-src-bot/5f1c.jsonl":           claudeLog,
		"codex/2026/02/17/rollout-s1.jsonl":    codexLog,
		"notes/2026-02-17-pairing.md":          "# Pairing\n\n- Decision: move the bot to the new VPS on Friday.\n",
		"broken.jsonl":                         "this is not json\nneither is this\n",
		"image.png":                            "\x89PNG",
		".hidden/2026-02-17.md":                "- Decision: hidden, never read\n",
		"notes/2026-02-16-other-day.md":        "- Decision: another day\n",
		"codex/2026/02/17/empty-session.jsonl": `{"timestamp":"2026-02-17T12:00:00.000Z","type":"session_meta","payload":{}}` + "\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func TestLoadTranscripts(t *testing.T) {
	dir := writeTranscripts(t)
	tr, err := LoadTranscripts(dir, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Skipped) != 1 || !strings.HasPrefix(tr.Skipped[0], "broken.jsonl: not a JSONL session log") {
		t.Errorf("skipped: %q", tr.Skipped)
	}
	parts := tr.Day(day(t, "2026-02-17"))
	var keys []string
	all := ""
	for _, p := range parts {
		keys = append(keys, p.Key)
		all += p.Text
	}
	want := "[transcripts/claude/-src-bot/5f1c.jsonl transcripts/codex/2026/02/17/rollout-s1.jsonl transcripts/notes/2026-02-17-pairing.md]"
	if got := "[" + strings.Join(keys, " ") + "]"; got != want {
		t.Errorf("keys of 2026-02-17: %s\nwant %s", got, want)
	}
	for _, in := range []string{"### user (09:00)\n\nFix the webhook timeout, please.", "Decision: raise the webhook timeout", "Add a retry to the credential vault client.", "Built the retry for the credential vault client", "move the bot to the new VPS"} {
		if !strings.Contains(all, in) {
			t.Errorf("missing %q in\n%s", in, all)
		}
	}
	for _, out := range []string{"TOOL OUTPUT", "go test ./...", "META", "environment_context", "hidden", "Lesson: always pin"} {
		if strings.Contains(all, out) {
			t.Errorf("%q should not be in 2026-02-17's text:\n%s", out, all)
		}
	}
	// The Claude session went on the next day: that message is the 18th's.
	next := tr.Day(day(t, "2026-02-18"))
	if len(next) != 1 || !strings.Contains(next[0].Text, "Lesson: always pin") {
		t.Errorf("2026-02-18: %+v", next)
	}
}

// TestRefineReadsTranscripts: a day's transcripts join its refine's sources,
// are recorded in sources: with the hash of that day's text, feed the built-in
// summarizer, and a change to another day's part of a log leaves the day up
// to date.
func TestRefineReadsTranscripts(t *testing.T) {
	f := newFixture(t)
	f.put(t, "2026-02-17.md", "---\nrevision: 1\nupdated: 2026-02-17T08:00:00.000Z\n---\n# 2026-02-17 (Tuesday)\n\n- Worked on the Telegram bot.\n")
	f.open(t)
	dir := writeTranscripts(t)
	tr, err := LoadTranscripts(dir, time.UTC)
	must(t, err)
	opts := Options{Today: day(t, "2026-02-18"), Transcripts: tr}
	outs, err := RunPlan(context.Background(), f.m, Request{Due: true}, opts, nil)
	must(t, err)
	if len(outs) != 1 || outs[0].Err != nil {
		t.Fatalf("outcomes: %+v", outs)
	}
	if n := len(outs[0].Sources); n != 4 {
		t.Errorf("%d sources, want the raw daily and 3 transcripts: %+v", n, outs[0].Sources)
	}
	got := f.read(t, "refined/2026-02-17.md")
	for _, in := range []string{"key: transcripts/claude/-src-bot/5f1c.jsonl, revision: 0, hash: ", "raise the webhook timeout to 30 s", "move the bot to the new VPS on Friday"} {
		if !strings.Contains(got, in) {
			t.Errorf("refined day lacks %q:\n%s", in, got)
		}
	}
	// The Claude log grows on the 18th: the 17th's part is the same.
	p := filepath.Join(dir, "claude/-src-bot/5f1c.jsonl")
	must(t, os.WriteFile(p, []byte(claudeLog+`{"type":"user","message":{"role":"user","content":"more on the 18th"},"timestamp":"2026-02-18T11:00:00.000Z"}`+"\n"), 0o644))
	tr, err = LoadTranscripts(dir, time.UTC)
	must(t, err)
	opts.Transcripts = tr
	f.open(t)
	jobs, err := Plan(f.m, Request{Due: true}, opts)
	must(t, err)
	if len(jobs) != 0 {
		t.Errorf("planned after another day's messages: %v", jobNames(jobs))
	}
	// A new message of the 17th makes it stale.
	must(t, os.WriteFile(p, []byte(claudeLog+`{"type":"user","message":{"role":"user","content":"late on the 17th"},"timestamp":"2026-02-17T23:00:00.000Z"}`+"\n"), 0o644))
	tr, err = LoadTranscripts(dir, time.UTC)
	must(t, err)
	opts.Transcripts = tr
	jobs, err = Plan(f.m, Request{Due: true}, opts)
	must(t, err)
	if len(jobs) != 1 || !strings.Contains(jobs[0].Reason, "transcripts/claude/-src-bot/5f1c.jsonl changed") {
		t.Errorf("after a new message of the day: %v %+v", jobNames(jobs), jobs)
	}
	// Agent journals do not read the project's transcripts.
	if opts.readsTranscripts(Journal{Dimension: engine.Agent}) || !opts.readsTranscripts(f.journal(t)) {
		t.Error("the project's transcripts feed its task journals only")
	}
}
