package lsp

import (
	"encoding/json"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/magicfrog/mf-lsp/session"
)

// didChangeConfiguration takes the "participant" setting from
// workspace/didChangeConfiguration, `settings` being the initializationOptions
// object or holding it under "magicfrog": the agent the editor answers for,
// which an editor asks the user for when an answer was refused with
// several-agents (docs/protocol.md). Every other key is read at initialize
// only (a client restarts the server for them); null clears the choice.
func (s *Server) didChangeConfiguration(_ *glsp.Context, p *protocol.DidChangeConfigurationParams) error {
	raw, err := json.Marshal(p.Settings)
	if err != nil {
		return nil
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return nil // null, or no object: nothing to take
	}
	if inner, ok := keys["magicfrog"]; ok {
		keys = nil
		if json.Unmarshal(inner, &keys) != nil {
			return nil
		}
	}
	v, ok := keys["participant"]
	if !ok {
		return nil
	}
	one, problems := session.ParseSettings(json.RawMessage(`{"participant":` + string(v) + `}`))
	if len(problems) > 0 {
		s.log.Printf("workspace/didChangeConfiguration: %v", problems[0])
		return nil
	}
	st := s.sess.Settings()
	if st.Participant == one.Participant {
		return nil
	}
	st.Participant = one.Participant
	s.sess.SetSettings(st)
	s.memoryChanged() // diagnostics, lenses and the block are another agent's now
	return nil
}
