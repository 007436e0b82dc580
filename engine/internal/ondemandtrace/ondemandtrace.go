// Package ondemandtrace holds what the engine's tests and its own packages'
// tests (engine/participant) observe of notes read on demand: the clock a
// load takes its start from, and how many texts were read and hashed again.
// It is internal to engine: nothing outside the module sets the clock.
package ondemandtrace

import (
	"sync/atomic"
	"time"
)

// LoadClock is the clock a load reads its start from (the time an
// on-demand note's stamp must be older than, by a margin, to be trusted).
// Tests set it (and put it back when they end); nothing else does.
var LoadClock = time.Now

// Reads counts the texts read on demand; Hashes those of them hashed (to
// be checked against the load's hash, or to take the hash the load left).
var Reads, Hashes atomic.Int64
