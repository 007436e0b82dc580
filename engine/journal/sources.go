package journal

import (
	"fmt"
	"strings"
)

// RecordedSource is one entry of a rollup's `sources:` frontmatter: the layer-relative
// key of a file the rollup read, its revision and its content hash. The hash
// is optional (a hand-written rollup may leave it out); without one only the
// revision is compared.
type RecordedSource struct {
	Key      string
	Revision int
	Hash     string
}

// ParseSources reads a `sources:` value as the YAML parser gives it: a list of
// maps with a non-empty string key, a revision ≥ 0 and, optionally, a string
// hash. ok is false when the value has another shape. This is the one reading
// of `sources:`: `rollup due` and the rollup-stale diagnostic both use it, so
// they agree on what is stale.
func ParseSources(v any) (out []RecordedSource, ok bool) {
	list, isList := v.([]any)
	if !isList {
		return nil, false
	}
	out = []RecordedSource{}
	for _, item := range list {
		m, isMap := item.(map[string]any)
		if !isMap {
			return nil, false
		}
		key, _ := m["key"].(string)
		rev, revOK := m["revision"].(int)
		hash, hashOK := m["hash"].(string)
		if m["hash"] == nil {
			hashOK = true // optional
		}
		if key == "" || !revOK || rev < 0 || !hashOK {
			return nil, false
		}
		out = append(out, RecordedSource{Key: key, Revision: rev, Hash: hash})
	}
	return out, true
}

// Changed says in words how the file behind s differs now from what the
// rollup read ("" when it does not): gone, at another revision, or, when s
// records a hash, with other content.
func (s RecordedSource) Changed(exists bool, revision int, hash string) string {
	switch {
	case !exists:
		return s.Key + " was removed"
	case revision != s.Revision:
		return fmt.Sprintf("%s is at revision %d, the rollup read revision %d", s.Key, revision, s.Revision)
	case s.Hash != "" && !strings.EqualFold(hash, s.Hash):
		return fmt.Sprintf("%s changed since the rollup read it (same revision %d, different content)", s.Key, s.Revision)
	}
	return ""
}
