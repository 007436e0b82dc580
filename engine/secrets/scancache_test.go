package secrets

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/internal/hashcache"
	"github.com/magicfrog/mf-lsp/engine/secrets/scancache"
)

// newProcess forgets this process's scans, as a new process starts with
// none, and opens the scan cache in dir.
func newProcess(t *testing.T, dir string) *scancache.Cache {
	t.Helper()
	cache.Lock()
	clear(cache.m)
	cache.Unlock()
	return scancache.Open(dir)
}

// TestScanCacheSameFindings: with the scan cache, in the process that fills
// it and the next one, ScanAdvisory finds what Scan finds; only the clean
// text is remembered, so a text with a secret is scanned every time.
func TestScanCacheSameFindings(t *testing.T) {
	dir := t.TempDir()
	clean := []byte("Prefer small functions and clear names.\n")
	secret := []byte("# Accounts\n\ntoken: " + githubPAT + "\n")
	want, err := Scan(secret)
	if err != nil || len(want) == 0 {
		t.Fatalf("Scan found %v, %v in the secret text", want, err)
	}
	for process := range 2 {
		c := newProcess(t, dir)
		if got, err := ScanAdvisory(c, clean); err != nil || len(got) != 0 {
			t.Errorf("process %d: clean text: %+v, %v", process, got, err)
		}
		if got, err := ScanAdvisory(c, secret); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("process %d: secret text: %+v, %v; want %+v", process, got, err, want)
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	records := hashcache.Open(filepath.Join(dir, scancache.File), scancache.Header, scancache.MaxRecords).Records()
	if len(records) != hashcache.RecordSize {
		t.Fatalf("%d bytes of records, want one record (the clean text)", len(records))
	}
	if _, ok := hashcache.Find(records, hashcache.KeyOf(clean)); !ok {
		t.Error("the clean text is not in the cache")
	}
}

// TestScanTrustsNoCache: sync's gate (Scan) finds a secret even when the
// cache file says its text is clean (a forged or wrong entry), and a
// damaged cache file is no entry at all.
func TestScanTrustsNoCache(t *testing.T) {
	dir := t.TempDir()
	secret := []byte("aws_access_key_id = " + awsKey + "\n")
	forged := hashcache.Open(filepath.Join(dir, scancache.File), scancache.Header, scancache.MaxRecords)
	forged.Add(hashcache.KeyOf(secret), 0)
	if err := forged.Flush(); err != nil {
		t.Fatal(err)
	}
	newProcess(t, dir)
	if fs, err := Scan(secret); err != nil || len(fs) == 0 {
		t.Errorf("Scan trusted the cache: %+v, %v", fs, err)
	}

	file := filepath.Join(dir, scancache.File)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff // the record's CRC no longer matches
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if fs, err := ScanAdvisory(newProcess(t, dir), secret); err != nil || len(fs) == 0 {
		t.Errorf("a damaged record hid the secret: %+v, %v", fs, err)
	}
}
