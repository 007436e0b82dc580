package main

import (
	"io"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
)

// The shell front end's flag set and exit codes (cmd/internal/shell, shared
// with cmd/mf-hook), by the names this package's commands use.
type cli = shell.Cmd

// runEnv is what mainExit makes for this process's commands: the caches it
// opens (shell.Env), which every command's Cmd hands to the memory it opens.
// Package main's own, set once before any command runs.
var runEnv = &shell.Env{}

// newCLI is the subcommand's Cmd over runEnv.
func newCLI(name, usage, about string, stdout, stderr io.Writer) *cli {
	return runEnv.New(name, usage, about, stdout, stderr)
}

const (
	exitOK    = shell.ExitOK
	exitError = shell.ExitError
	exitUsage = shell.ExitUsage
	exitStale = shell.ExitStale
)
