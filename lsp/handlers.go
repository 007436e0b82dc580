package lsp

import (
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// registerHandlers is the one place that wires LSP methods to Server methods. Each
// feature lives in its own file (hover.go, codelens.go, ...) and is connected here
// with one line. Keep capabilities() below in step: announce what is wired.
//
// initialize, shutdown and exit are handled by Server.Handle (the lifecycle);
// $/cancelRequest by the transport (it must see the raw request id).
func (s *Server) registerHandlers() {
	h := &s.handler

	// Lifecycle and housekeeping.
	h.Initialized = s.initialized
	h.SetTrace = s.setTrace
	// Settings are taken from initializationOptions, except "participant",
	// which a client may change at once (participant.go).
	h.WorkspaceDidChangeConfiguration = s.didChangeConfiguration

	// Text synchronization (documents.go).
	h.TextDocumentDidOpen = s.didOpen
	s.extra[string(protocol.MethodTextDocumentDidChange)] = rawParams(s.didChange) // one pass over the params (changeParams)
	h.TextDocumentDidSave = s.didSave
	h.TextDocumentDidClose = s.didClose

	// Features, one file each. Those that need a loaded tree are raw handlers
	// (rawParams): they may answer beside the loop while it loads (loading.go).
	s.extra[string(protocol.MethodTextDocumentWillSaveWaitUntil)] = rawParams(s.willSaveWaitUntil) // save.go
	s.extra[string(protocol.MethodTextDocumentHover)] = rawParams(s.hover)                         // hover.go
	s.extra[string(protocol.MethodTextDocumentCodeLens)] = rawParams(s.codeLens)                   // codelens.go
	s.extra[string(protocol.MethodWorkspaceSymbol)] = rawParams(s.workspaceSymbol)                 // symbols.go
	s.extra[string(protocol.MethodTextDocumentDefinition)] = rawParams(s.definition)               // definition.go
	s.extra[string(protocol.MethodTextDocumentDocumentLink)] = rawParams(s.documentLink)           // definition.go
	s.extra[string(protocol.MethodTextDocumentReferences)] = rawParams(s.references)               // definition.go
	s.extra[string(protocol.MethodTextDocumentCompletion)] = rawParams(s.completion)               // completion.go
	s.extra[string(protocol.MethodTextDocumentPrepareRename)] = rawParams(s.prepareRename)         // rename.go
	s.extra[string(protocol.MethodTextDocumentRename)] = rawParams(s.rename)                       // rename.go
	s.extra[string(protocol.MethodWorkspaceWillRenameFiles)] = rawParams(s.willRenameFiles)        // rename.go
	h.WorkspaceDidRenameFiles = s.didRenameFiles                                                   // rename.go
	s.extra["textDocument/inlayHint"] = rawParams(s.inlayHint)                                     // inlay.go (LSP 3.17)
	h.TextDocumentCodeAction = s.codeAction                                                        // codeaction.go
	h.TextDocumentFoldingRange = s.foldingRange                                                    // folding.go
	h.TextDocumentDocumentSymbol = s.documentSymbol                                                // symbols.go

	// Methods that need raw params (glsp mis-decodes IntegerOrString fields such as
	// progress tokens) or that glsp does not know go in s.extra.
	s.extra[string(protocol.MethodWindowWorkDoneProgressCancel)] = s.progressCancel // progress.go
	s.extra[string(protocol.MethodWorkspaceExecuteCommand)] = s.executeCommand      // commands.go

	s.commands = s.registerCommands() // commands.go

	// Memory changed on disk as the client saw it (watch.go).
	h.WorkspaceDidChangeWatchedFiles = s.didChangeWatchedFiles
}

// capabilities announces what registerHandlers wires. glsp's
// CreateServerCapabilities is not used: it sends "commands": null.
func (s *Server) capabilities() protocol.ServerCapabilities {
	yes := true
	return protocol.ServerCapabilities{
		TextDocumentSync: protocol.TextDocumentSyncOptions{
			OpenClose:         &yes,
			Change:            ptr(protocol.TextDocumentSyncKindIncremental),
			WillSaveWaitUntil: &yes,
			Save:              protocol.SaveOptions{IncludeText: ptr(false)},
		},
		HoverProvider:           true,
		CodeLensProvider:        &protocol.CodeLensOptions{ResolveProvider: ptr(false)},
		CodeActionProvider:      protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, KindRefactorMove, KindSourceRollup}},
		ExecuteCommandProvider:  &protocol.ExecuteCommandOptions{Commands: s.commandNames()},
		DocumentSymbolProvider:  true,
		WorkspaceSymbolProvider: true,
		DefinitionProvider:      true,
		ReferencesProvider:      true,
		FoldingRangeProvider:    true,
		RenameProvider:          protocol.RenameOptions{PrepareProvider: ptr(true)},
		Workspace: &protocol.ServerCapabilitiesWorkspace{FileOperations: &protocol.ServerCapabilitiesWorkspaceFileOperations{
			WillRename: &notesFilter, DidRename: &notesFilter,
		}},
		CompletionProvider:   &protocol.CompletionOptions{TriggerCharacters: completionTriggers},
		DocumentLinkProvider: &protocol.DocumentLinkOptions{ResolveProvider: ptr(false)},
	}
}

func ptr[T any](v T) *T { return &v }

// notesFilter is the file operations the server follows: Markdown files.
var notesFilter = protocol.FileOperationRegistrationOptions{Filters: []protocol.FileOperationFilter{{Pattern: protocol.FileOperationPattern{Glob: "**/*.md"}}}}
