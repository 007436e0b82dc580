package base

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// PathToURI converts an absolute local path to a file:// URI, percent-encoded
// as clients expect.
func PathToURI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
