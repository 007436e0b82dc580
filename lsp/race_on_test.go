//go:build race

package lsp

// raceEnabled: sync.Pool drops what it is given at random under the race
// detector, so the tests that a pooled array is reused check it without.
const raceEnabled = true
