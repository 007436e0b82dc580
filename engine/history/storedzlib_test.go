package history

import (
	"bytes"
	"compress/zlib"
	"io"
	"strings"
	"testing"
)

// TestStoredZlibReads checks the loose objects' stream against zlib's reader
// (its checksum too) at sizes around a stored block's 65,535 bytes.
func TestStoredZlibReads(t *testing.T) {
	for _, n := range []int{0, 1, 100, 65535 - 9, 65535 - 8, 65535, 65536, 3*65535 + 7} {
		body := []byte(strings.Repeat("abcdefghij", n/10+1)[:n])
		head := looseHeader(len(body))
		r, err := zlib.NewReader(bytes.NewReader(storedZlib(head, body)))
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		if want := append(append([]byte(nil), head...), body...); !bytes.Equal(got, want) {
			t.Fatalf("%d: read %d bytes, want %d", n, len(got), len(want))
		}
	}
}
