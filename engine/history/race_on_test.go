//go:build race

package history

// raceEnabled: the race detector slows packing about tenfold, so the tests
// that pack tens of megabytes pack less under it (the plain go test run packs
// it all).
const raceEnabled = true
