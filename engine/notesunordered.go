package engine

// NotesUnordered returns every loaded note in no particular order, for a
// caller that orders them itself: Notes sorts them by dimension, scope and
// key, a tenth of `mf-lsp check`'s own work at 100,000 notes, which then
// wants them by path.
func (m *Memory) NotesUnordered() []*Note {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]*Note, 0, len(m.entries))
	for _, e := range m.entries {
		out = append(out, e)
	}
	return out
}
