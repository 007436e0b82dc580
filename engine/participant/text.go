package participant

import "github.com/magicfrog/mf-lsp/engine"

// bodyText is e's body, ok false when its text could not be had (read on
// demand, it changed on disk since the load: engine.Note.Text, which has the
// tree refresh it). Search leaves such a note out rather than rank or quote
// a text that is no longer there.
func bodyText(e *engine.Note) (string, bool) {
	body, err := e.Body()
	return string(body), err == nil
}
