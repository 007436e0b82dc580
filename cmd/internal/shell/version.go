package shell

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

func (e *Env) Version(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := e.New("version", "mf-lsp version", `
Print the version of mf-lsp (the main module's version, "(devel)" for a build
from a working tree), the Go version, the platform and, when the build recorded
one, the VCS revision: "mf-lsp VERSION GOVERSION OS/ARCH [REVISION]".`, stdout, stderr)
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	v, rev := BuildVersion()
	fields := []any{"mf-lsp", v, runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH}
	if rev != "" {
		fields = append(fields, rev)
	}
	fmt.Fprintln(stdout, fields...)
	return ExitOK
}

// version is the main module's version, "(devel)" when it has none, and the
// VCS revision the build recorded ("" when none).
func BuildVersion() (string, string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)", ""
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		rev += dirty
	}
	return v, rev
}
