//go:build tools

// Package tools pins the modules the project builds on until every one is imported
// by real code; nothing imports it.
package tools
import (
 _ "github.com/tliron/glsp"
 _ "github.com/tliron/glsp/protocol_3_16"
 _ "github.com/sourcegraph/jsonrpc2"
 _ "github.com/yuin/goldmark"
 _ "github.com/fsnotify/fsnotify"
 _ "github.com/goccy/go-yaml"
 _ "github.com/tiktoken-go/tokenizer"
 _ "github.com/gofrs/flock"
 _ "github.com/google/renameio/v2"
 _ "github.com/rogpeppe/go-internal/testscript"
 _ "github.com/rogpeppe/go-internal/txtar"
)
