// Package scancache is the secret-scan cache without the scanner: the texts
// gitleaks' default rules found clean in an earlier process, remembered by
// the SHA-256 of the text (engine/internal/hashcache: bounded, a damaged
// record or a file of another version is a miss, safe to delete). Only clean
// texts are kept, so a hit is "no findings"; the header names the gitleaks
// version, whose rules decide. It is never a source of truth: sync does not
// read it.
//
// It is a package of its own so that what only carries the cache (engine's
// Options and Memory, a binary that never scans) links no detector:
// engine/secrets does the scanning and consults it (ScanAdvisory).
package scancache

import (
	"path/filepath"
	"sync"

	"github.com/magicfrog/mf-lsp/engine/internal/hashcache"
)

// File is the scan cache's file name inside its folder.
const File = "secret-scans"

// maxRecords bounds the file at 12 MiB.
const maxRecords = 1 << 19

// header names the rules' version: the build's gitleaks module, read from
// the build info, so no detector is linked to name it.
var header = sync.OnceValue(func() []byte {
	return []byte("mf-lsp clean secret scans 1 gitleaks@" + hashcache.ModuleVersion("github.com/zricethezav/gitleaks/v8") + " default rules\n")
})

// Cache is the scan cache: a value its user makes (Open) and hands to what
// scans for advice (engine.Options.SecretScans, secrets.ScanAdvisory); the
// nil *Cache is none, the library's default. Safe for concurrent use.
type Cache struct{ f *hashcache.File }

// Open keeps the scan cache in dir across processes ("" is none: nil). The
// binary passes the token-count cache's folder.
func Open(dir string) *Cache {
	if dir == "" {
		return nil
	}
	return &Cache{f: hashcache.Open(filepath.Join(dir, File), header, maxRecords)}
}

// Clean reports whether the text whose SHA-256 is sum was found clean by
// this build's rules in this or an earlier process; false on the nil Cache.
func (c *Cache) Clean(sum [32]byte) bool {
	if c == nil {
		return false
	}
	_, ok := c.f.Lookup(hashcache.KeyOfSum(sum))
	return ok
}

// AddClean remembers that the text whose SHA-256 is sum has no findings;
// nothing on the nil Cache.
func (c *Cache) AddClean(sum [32]byte) {
	if c != nil {
		c.f.Add(hashcache.KeyOfSum(sum), 0)
	}
}

// Flush writes the clean scans made since the last write, if any. A cache
// that cannot be written costs only speed.
func (c *Cache) Flush() error {
	if c == nil {
		return nil
	}
	return c.f.Flush()
}

// Header is the file's header (for tests that forge or inspect the file).
func Header() []byte { return header() }

// MaxRecords is the file's bound in records (for tests that open the file).
const MaxRecords = maxRecords
