package engine

import "github.com/magicfrog/mf-lsp/engine/internal/flatjson"

// decodeFlat decodes data, a JSON object whose members are strings, arrays
// of strings or null, into the fields named (flatjson.Decoder.Fields): the
// fast path of the roster and the binding. False: json's (readJSON).
func decodeFlat(data []byte, str map[string]*string, list map[string]*[]string) bool {
	d, ok := flatjson.New(data)
	return ok && d.Fields(str, list) && d.End()
}

// decodeLayersFlat is layers.json's fast path: {"layers": [{"name",
// "prefix", "kind"}, …]}; false: json's.
func decodeLayersFlat(data []byte) ([]Layer, bool) {
	d, ok := flatjson.New(data)
	if !ok {
		return nil, false
	}
	var out []Layer
	seen := false
	layers := func(key string) bool {
		// A second "layers" is json's: it decodes into the first's elements.
		if key != "layers" || seen {
			return false
		}
		seen = true
		if d.Null() {
			return true
		}
		if !d.Skip('[') {
			return false
		}
		out = []Layer{}
		if d.Skip(']') {
			return true
		}
		for {
			var l Layer
			if !d.Fields(map[string]*string{"name": &l.Name, "prefix": &l.Prefix, "kind": &l.Kind}, nil) {
				return false
			}
			out = append(out, l)
			if !d.Skip(',') {
				return d.Skip(']')
			}
		}
	}
	if !d.Object(layers) || !d.End() {
		return nil, false
	}
	return out, true
}

// decodeFlat is the roster's fast path (decodeFlat): agents and shared.
// False leaves r zero.
func (r *Roster) decodeFlat(data []byte) bool {
	if decodeFlat(data, nil, map[string]*[]string{"agents": &r.Agents, "shared": &r.Shared}) {
		return true
	}
	*r = Roster{}
	return false
}

// decodeFlat is the binding's fast path (decodeFlat): every field but
// journals. False leaves b zero.
func (b *Binding) decodeFlat(data []byte) bool {
	if decodeFlat(data,
		map[string]*string{"task": &b.Task, "summarizer": &b.Summarizer, "promote": &b.Promote, "transcripts": &b.Transcripts},
		map[string]*[]string{"tasks": &b.Tasks, "agents": &b.Agents, "shared": &b.Shared}) {
		return true
	}
	*b = Binding{}
	return false
}
