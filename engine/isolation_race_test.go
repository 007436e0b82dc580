//go:build race

package engine_test

// isolationChecks is fewer under the race detector, which slows each case tenfold.
const isolationChecks = "300"
