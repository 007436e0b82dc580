package session

import (
	"path/filepath"
	"testing"
)

func TestURIRoundTrip(t *testing.T) {
	for _, p := range []string{"/tmp/a.md", "/tmp/my project/notes/ü 😀.md", "/tmp/100%/#1.md"} {
		uri := PathToURI(p)
		back, err := URIToPath(uri)
		if err != nil || back != p {
			t.Errorf("URIToPath(PathToURI(%q)) = %q (%s), %v", p, back, uri, err)
		}
	}
	if got, err := URIToPath("file:///tmp/my%20project"); err != nil || got != "/tmp/my project" {
		t.Errorf("URIToPath = %q, %v", got, err)
	}
	if _, err := URIToPath("untitled:Untitled-1"); err == nil {
		t.Error("URIToPath(untitled:) succeeded")
	}
}

// Issue 14: file://otherhost/x names a file on another machine; it is not /x
// here. file://localhost/x is local.
func TestURIOtherHost(t *testing.T) {
	if _, err := URIToPath("file://otherhost/etc/passwd"); err == nil {
		t.Error("file://otherhost/… taken as a local file")
	}
	if got, err := URIToPath("file://localhost/tmp/a.md"); err != nil || got != filepath.FromSlash("/tmp/a.md") {
		t.Errorf("file://localhost: %q, %v", got, err)
	}
}
