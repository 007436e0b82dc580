// Package shell is the shell front end that both binaries share: the flag set
// every subcommand parses (Cmd: --data-dir, --project, --help, the scope
// flags), its messages and exit codes, and the commands an agent's hook runs
// on every event (Version, Append, Render), which cmd/mf-lsp and the lean
// cmd/mf-hook both dispatch to, so the two print the same bytes and exit with
// the same codes. Like every front end it only translates: it calls
// session/base and engine/participant, never session (whose checks and
// editor features a hook does not need, nor their start-up cost).
package shell
