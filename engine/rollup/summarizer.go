package rollup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// Input is what a summarizer gets: the rollup and its sources (layer-relative
// keys and the files' bytes, frontmatter included; journal.Summarize and
// journal.Prompt skip it).
type Input struct {
	Kind    journal.RollupKind
	Period  string
	Sources []journal.Source
}

// Summarizer writes a rollup's Markdown body from its sources.
type Summarizer interface {
	// Name is how reports name it: "builtin" or the command line.
	Name() string
	Summarize(ctx context.Context, in Input) (string, error)
}

// Builtin is the built-in extractive summarizer (journal.Summarize): offline
// and deterministic.
var Builtin Summarizer = builtin{}

type builtin struct{}

func (builtin) Name() string { return "builtin" }
func (builtin) Summarize(ctx context.Context, in Input) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return journal.Summarize(in.Kind, in.Period, in.Sources), nil
}

// DefaultTimeout is how long a summarizer command may run.
const DefaultTimeout = 120 * time.Second

// maxOutput is the most a summarizer command may print: a note's maximum size.
const maxOutput = engine.MaxNoteSize

// CommandSummarizer runs a user-configured command (any LLM CLI): the prompt
// (journal.Prompt) on stdin, the rollup's Markdown on stdout.
type CommandSummarizer struct {
	Line    string   // the command line as configured
	Argv    []string // split like a shell (SplitCommand)
	Timeout time.Duration
	// Dir is the working directory; "" is the current one.
	Dir string
}

// Command makes a summarizer of a command line. The line is split like a POSIX
// shell splits words (SplitCommand: quotes and backslashes, no expansion, no
// pipes) and the program is run directly, not through a shell; to use shell
// features, configure `sh -c '…'` yourself. timeout 0 is DefaultTimeout.
func Command(cmdline string, timeout time.Duration) (*CommandSummarizer, error) {
	argv, err := SplitCommand(cmdline)
	if err != nil {
		return nil, fmt.Errorf("summarizer %q: %w", cmdline, err)
	}
	if len(argv) == 0 {
		return nil, errors.New("summarizer: empty command line")
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &CommandSummarizer{Line: strings.TrimSpace(cmdline), Argv: argv, Timeout: timeout}, nil
}

// Resolve picks the summarizer from configuration sources, most specific first
// (the --summarizer flag, the LSP option, the project's config.json
// `summarizer`): the first non-empty one wins; "builtin" names the built-in
// one, which is also the default when all are empty.
func Resolve(timeout time.Duration, choices ...string) (Summarizer, error) {
	for _, c := range choices {
		c = strings.TrimSpace(c)
		switch c {
		case "":
			continue
		case "builtin":
			return Builtin, nil
		}
		return Command(c, timeout)
	}
	return Builtin, nil
}

func (c *CommandSummarizer) Name() string { return c.Line }

// Summarize runs the command. Errors name the command and say what went wrong:
// it could not start, it ran past the timeout (it is killed, with its process
// group where the system has them), it exited non-zero (with the tail of its
// stderr), it printed nothing, or printed more than a note may hold. The
// output's shape is checked by Run (CheckOutput).
func (c *CommandSummarizer) Summarize(ctx context.Context, in Input) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(),
		"MAGICFROG_ROLLUP="+in.Kind.String(),
		"MAGICFROG_PERIOD="+in.Period,
	)
	cmd.Stdin = strings.NewReader(journal.Prompt(in.Kind, in.Period, in.Sources))
	var stdout limitedBuffer
	stdout.max = maxOutput
	var stderr tailBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	setProcessGroup(cmd)
	// Grandchildren that keep the pipes open must not keep us waiting.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The command exited 0; a child it left behind (setsid, a daemon)
		// still holds the pipe. What the command printed is complete.
		err = nil
	}
	name := fmt.Sprintf("summarizer `%s`", c.Line)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("%s did not finish within %s and was stopped; raise the timeout (--timeout) or use a faster model%s", name, c.Timeout, stderr.suffix())
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s: %w", name, ctx.Err())
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("%s: %s not found: check the command line (it is run directly, not by a shell)", name, c.Argv[0])
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s failed (%s)%s", name, ee.ProcessState, stderr.suffix())
		}
		return "", fmt.Errorf("%s: %w", name, err)
	case stdout.over:
		return "", fmt.Errorf("%s printed more than %d bytes: not a rollup", name, maxOutput)
	case strings.TrimSpace(stdout.String()) == "":
		return "", fmt.Errorf("%s printed nothing on stdout%s", name, stderr.suffix())
	}
	return stdout.String(), nil
}

// CheckOutput turns a summarizer's output into the rollup's body: an outer
// ``` fence (as chat models like to add) is taken off, line ends are kept, and
// a trailing newline is ensured. It fails when the text is not UTF-8 or has
// none of the rollup's "## " sections; missing returns the sections it lacks.
func CheckOutput(kind journal.RollupKind, out string) (body string, missing []string, err error) {
	if !utf8.ValidString(out) {
		return "", nil, errors.New("the output is not UTF-8 text")
	}
	body = unfence(strings.TrimLeft(out, "\r\n"))
	body = strings.TrimRight(body, " \t\r\n") + "\n"
	want := journal.SectionsFor(kind)
	secs := journal.ParseSections([]byte(body))
	found := 0
	for _, s := range want {
		if journal.FindSection(secs, s) != nil {
			found++
		} else {
			missing = append(missing, s)
		}
	}
	if found == 0 {
		first, _, _ := strings.Cut(strings.TrimSpace(body), "\n")
		if len(first) > 80 {
			first = first[:80] + "…"
		}
		return "", nil, fmt.Errorf("the output has none of the expected sections (## %s); it starts %q", strings.Join(want, ", ## "), first)
	}
	return body, missing, nil
}

// unfence removes one fence around the whole text: a first line "```",
// "```markdown" or "```md" and a last line "```".
func unfence(s string) string {
	t := strings.TrimSpace(s)
	nl := strings.IndexByte(t, '\n')
	if nl < 0 || !strings.HasSuffix(t, "```") {
		return s
	}
	switch strings.TrimSpace(t[:nl]) {
	case "```", "```markdown", "```md":
	default:
		return s
	}
	inner := strings.TrimSuffix(t[nl+1:], "```")
	if !strings.HasSuffix(inner, "\n") && inner != "" {
		return s // the closing fence is not on a line of its own
	}
	return inner
}

// SplitCommand splits a command line into words as a POSIX shell does, without
// expansions: words are separated by blanks; 'single quotes' keep everything;
// "double quotes" keep everything but \" \\ \$ \` ; a backslash outside quotes
// keeps the next character. Unterminated quotes are an error.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					cur.WriteByte(s[i])
				}
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated ' quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New(`unterminated " quote`)
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// limitedBuffer keeps at most max bytes and remembers that there were more.
// It holds its bytes.Buffer as a field, not embedded: embedded, the Buffer's
// ReadFrom is promoted, and io.Copy (which os/exec uses for a pipe) calls it
// instead of Write, filling memory with whatever the command prints (a
// summarizer printing 50 MB was written as a 50 MB rollup).
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) String() string { return b.buf.String() }

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct{ b []byte }

const stderrTail = 2000

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*stderrTail {
		t.b = append([]byte(nil), t.b[len(t.b)-stderrTail:]...)
	}
	return len(p), nil
}

// suffix is ": stderr: <its last lines>" or "" when it printed nothing.
func (t *tailBuffer) suffix() string {
	s := string(t.b)
	cut := false
	if len(s) > stderrTail {
		s, cut = s[len(s)-stderrTail:], true
	}
	s = strings.ToValidUTF8(strings.TrimSpace(s), "?")
	if s == "" {
		return ""
	}
	if cut {
		s = "…" + s
	}
	return ": stderr: " + s
}

var _ io.Writer = (*tailBuffer)(nil)
