//go:build !race

package engine_test

// isolationChecks is how many generated cases TestIsolationProperty runs.
const isolationChecks = "2000"
