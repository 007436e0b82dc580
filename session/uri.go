package session

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// URIToPath converts a file:// URI to a local path. Other schemes (untitled:,
// git:) are an error: those documents are not memory on disk.
func URIToPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("invalid URI %q: %v", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file URI: %q", uri)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		// file:///C:/x has path "/C:/x"; a UNC file://host/share keeps its host.
		if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
			p = p[1:]
		} else if u.Host != "" {
			p = "//" + u.Host + p
		}
	} else if u.Host != "" && u.Host != "localhost" {
		// file://otherhost/x names a file on another machine (RFC 8089); reading
		// /x here would be a different file.
		return "", fmt.Errorf("not a local file URI (host %q): %q", u.Host, uri)
	}
	if !filepath.IsAbs(filepath.FromSlash(p)) {
		return "", fmt.Errorf("not an absolute file URI: %q", uri)
	}
	return filepath.FromSlash(p), nil
}

// PathToURI converts an absolute local path to a file:// URI, percent-encoded
// as clients expect.
func PathToURI(path string) string {
	p := filepath.ToSlash(path)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
