//go:build race

package roam

// raceEnabled: the race detector multiplies memory and time several fold, so
// a test that bounds what a sync allocates means nothing under it.
const raceEnabled = true
