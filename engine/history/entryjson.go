package history

import (
	"encoding/json"
	"strconv"

	"github.com/magicfrog/mf-lsp/engine/internal/flatjson"
)

// A log line is an Entry as encoding/json writes it. These are its fast
// paths: what json would write or read for the lines the engine writes
// (fixed words, hex names, RFC 3339 times), without its reflection, which
// at one line per note a CLI call reads or writes cost more than the lines.
// Anything else takes encoding/json (TestEntryJSONIsJSONs).

// marshalEntry is json.Marshal(e), byte for byte.
func marshalEntry(e Entry) []byte {
	t, err := e.Time.MarshalJSON()
	if err != nil || !plainJSON(e.How) || !plainJSON(e.Blob) || !plainJSON(e.Lost) {
		b, _ := json.Marshal(e)
		return b
	}
	b := make([]byte, 0, 64+len(e.Blob)+len(e.Lost))
	b = append(b, `{"t":`...)
	b = append(b, t...)
	b = append(b, `,"how":"`...)
	b = append(b, e.How...)
	b = append(b, `","rev":`...)
	b = strconv.AppendInt(b, int64(e.Revision), 10)
	if e.Blob != "" {
		b = append(b, `,"blob":"`...)
		b = append(b, e.Blob...)
		b = append(b, '"')
	}
	if e.Lost != "" {
		b = append(b, `,"lost":"`...)
		b = append(b, e.Lost...)
		b = append(b, '"')
	}
	if e.LostRevision != 0 {
		b = append(b, `,"lostRev":`...)
		b = strconv.AppendInt(b, int64(e.LostRevision), 10)
	}
	return append(b, '}')
}

// plainJSON reports whether json writes s as it is between quotes: printable
// ASCII without the characters it escapes (", \ and, as HTML, <, > and &).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}

// unmarshalEntry is json.Unmarshal(line, e) into a zero e, reporting
// whether it succeeded.
func unmarshalEntry(line []byte, e *Entry) bool {
	if d, ok := flatjson.New(line); ok && d.Object(func(key string) bool { return entryMember(d, key, e) }) && d.End() {
		return true
	}
	*e = Entry{}
	return json.Unmarshal(line, e) == nil
}

// entryMember reads the value of one member of a line (false: json's).
func entryMember(d *flatjson.Decoder, key string, e *Entry) bool {
	var ok bool
	switch key {
	case "t":
		var q []byte
		if q, ok = d.Quoted(); ok {
			ok = e.Time.UnmarshalJSON(q) == nil
		}
	case "how":
		e.How, ok = d.String()
	case "blob":
		e.Blob, ok = d.String()
	case "lost":
		e.Lost, ok = d.String()
	case "rev":
		e.Revision, ok = d.Int()
	case "lostRev":
		e.LostRevision, ok = d.Int()
	}
	return ok
}
