package engine

import (
	"time"

	"github.com/magicfrog/mf-lsp/engine/internal/ondemandtrace"
)

// TokenizerRuns is how many texts the tokenizer has counted in this process.
func TokenizerRuns() int64 { return tokenizerRuns.Load() }

// WalkByPath makes loads walk by path (filepath.WalkDir) instead of through
// opened folders, until the test ends.
func WalkByPath(t interface{ Cleanup(func()) }) {
	walkByPath = true
	t.Cleanup(func() { walkByPath = false })
}

// SetLoadClock makes now the clock a load reads its start from (the time
// an on-demand note's stamp must be 2 s older than to be trusted), until
// the test ends.
func SetLoadClock(t interface{ Cleanup(func()) }, now func() time.Time) {
	was := ondemandtrace.LoadClock
	ondemandtrace.LoadClock = now
	t.Cleanup(func() { ondemandtrace.LoadClock = was })
}

// OnDemandHashes is how many texts read on demand were hashed in this
// process to be checked against the load's hash.
func OnDemandHashes() int64 { return onDemandHashes.Load() }

// OnDemandReads is how many texts were read on demand in this process.
func OnDemandReads() int64 { return onDemandReads.Load() }
