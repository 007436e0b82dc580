package engine

import "github.com/magicfrog/mf-lsp/engine/errcode"

// The engine's refusals name their errcode.Code, so front ends send the code
// and its details and no client matches English.

// ErrorCode: a refused promotion end is stale.
func (e *EndError) ErrorCode() errcode.Code { return errcode.Stale }

// ErrorData is the stale end's data, saying which end.
func (e *EndError) ErrorData() errcode.Data {
	d := e.Err.ErrorData()
	d.End = e.End
	return d
}

// ErrorCode: an ID on no roster.
func (e *UnregisteredError) ErrorCode() errcode.Code { return errcode.Unregistered }

// ErrorCode: one block is for one agent.
func (e *SeveralAgentsError) ErrorCode() errcode.Code { return errcode.SeveralAgents }

// ErrorData offers the agents to pick from.
func (e *SeveralAgentsError) ErrorData() errcode.Data {
	return errcode.Data{Code: errcode.SeveralAgents, Choices: append([]string{}, e.Agents...)}
}
