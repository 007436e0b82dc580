package main

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// moduleRoot is the repository root, seen from this package's directory (where go
// test runs).
const moduleRoot = "../.."

// TestEveryPackageHasADoc walks the module and wants a package comment on every
// package in it (packages added later included), so that `go doc` describes each
// in a sentence: "Package NAME ..." for a library, "Command NAME ..." for a
// program.
func TestEveryPackageHasADoc(t *testing.T) {
	pkgs := modulePackages(t)
	for rel, pkg := range pkgs {
		want := "Package " + pkg.Name + " "
		if pkg.Name == "main" {
			want = "Command "
		}
		switch {
		case pkg.Doc == "":
			t.Errorf("%s: no package comment; add a doc.go saying what package %s is, starting %q", rel, pkg.Name, want)
		case !strings.HasPrefix(pkg.Doc, want):
			t.Errorf("%s: package comment starts %q; want %q...", rel, pkg.Doc, want)
		case !strings.HasSuffix(pkg.Doc, "."):
			t.Errorf("%s: package comment's first sentence %q does not end in a full stop", rel, pkg.Doc)
		}
	}
	if len(pkgs) < 20 {
		t.Errorf("checked %d packages; the walk from %s missed the module", len(pkgs), moduleRoot)
	}
}

// modulePackages are the module's Go packages by slash-separated path from the
// module root (hidden, testdata and node_modules folders left out), as
// go/build reads them.
func modulePackages(t *testing.T) map[string]*build.Package {
	t.Helper()
	pkgs := map[string]*build.Package{}
	err := filepath.WalkDir(moduleRoot, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != moduleRoot && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			return nil
		}
		rel, _ := filepath.Rel(moduleRoot, dir)
		pkgs[filepath.ToSlash(rel)] = pkg
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestCLIDocCoversHelp runs `mf-lsp help` and every subcommand's --help and wants
// docs/cli.md to keep up with them: a "## NAME" section and a row in the command
// table for each subcommand, each word of its usage line that names a mode
// (`sync status`, `rollup due`) and each flag its help names, in its section
// (or, for the shared flags, in "Common rules"), and every exit code `mf-lsp
// help` lists in the exit-code table.
func TestCLIDocCoversHelp(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := cliSections(string(doc))
	// Flags every command takes are documented once, in the table of "Common rules".
	shared := map[string]bool{}
	for _, m := range regexp.MustCompile("\\| `(--[a-z][a-z0-9-]*)").FindAllStringSubmatch(sections["Common"], -1) {
		shared[m[1]] = true
	}
	if !shared["--data-dir"] {
		t.Fatalf(`docs/cli.md's "## Common rules" has no flag table naming --data-dir`)
	}

	top := helpOutput(t, "help")
	names := regexp.MustCompile(`(?m)^  ([a-z]+) `).FindAllStringSubmatch(top[strings.Index(top, "Commands:"):], -1)
	if len(names) < 15 {
		t.Fatalf("mf-lsp help lists %d commands:\n%s", len(names), top)
	}
	for _, m := range names {
		name := m[1]
		if !strings.Contains(sections[""], "[`"+name+"`](#"+name+")") {
			t.Errorf("docs/cli.md: the command table has no row [`%s`](#%s)", name, name)
		}
		section, ok := sections[name]
		if !ok {
			t.Errorf("docs/cli.md has no \"## %s\" section", name)
			continue
		}
		help := helpOutput(t, name, "--help")
		for _, mode := range usageModes(name, help) {
			if !mentions(section, mode) {
				t.Errorf("docs/cli.md ## %s does not mention the mode %q of its usage line", name, mode)
			}
			if mode != "help" {
				help += helpOutput(t, name, mode, "--help")
			}
		}
		for _, flag := range helpFlags(help) {
			if !shared[flag] && !mentions(section, flag) {
				t.Errorf("docs/cli.md ## %s does not mention %s (mf-lsp %s --help lists it)", name, flag, name)
			}
		}
	}

	codes := regexp.MustCompile(`Exit codes: (.*?)\.`).FindStringSubmatch(strings.Join(strings.Fields(top), " "))
	if codes == nil {
		t.Fatalf("mf-lsp help names no exit codes:\n%s", top)
	}
	for _, c := range regexp.MustCompile(`(\d+) ([^,]+)`).FindAllStringSubmatch(codes[1], -1) {
		if !strings.Contains(sections["Common"], "| "+c[1]+" |") {
			t.Errorf("docs/cli.md's exit-code table has no row for %s (%s)", c[1], c[2])
		}
	}
}

// helpOutput is what `mf-lsp ARGS...` prints on stdout; it must exit 0.
func helpOutput(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("mf-lsp %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// cliSections splits docs/cli.md at its "## " headings, keyed by the heading's
// first word; "" is the text before the first.
func cliSections(doc string) map[string]string {
	out := map[string]string{}
	key := ""
	for _, line := range strings.SplitAfter(doc, "\n") {
		if rest, ok := strings.CutPrefix(line, "## "); ok {
			key = strings.Fields(rest)[0]
		}
		out[key] += line
	}
	return out
}

// usageModes are the lower-case words after `mf-lsp NAME` in the usage line
// that name a mode of the command, not a flag or a placeholder:
// `mf-lsp schedule install|status|remove` gives install, status and remove.
func usageModes(name, help string) []string {
	usage, _, _ := strings.Cut(help, "\n\n")
	var modes []string
	for _, m := range regexp.MustCompile(`mf-lsp `+name+` ([a-z]+(?:\|[a-z]+)*)\b`).FindAllStringSubmatch(usage, -1) {
		modes = append(modes, strings.Split(m[1], "|")...)
	}
	return modes
}

// helpFlags are the --flags a help text names, --help aside.
func helpFlags(help string) []string {
	seen := map[string]bool{"--help": true}
	var flags []string
	for _, f := range regexp.MustCompile(`--[a-z][a-z0-9-]*`).FindAllString(help, -1) {
		if !seen[f] {
			seen[f] = true
			flags = append(flags, f)
		}
	}
	return flags
}

// mentions reports whether text holds word as a whole word (a flag's name is not
// mentioned by a longer flag that starts with it).
func mentions(text, word string) bool {
	return regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(word) + `($|[^a-z0-9-])`).MatchString(text)
}
