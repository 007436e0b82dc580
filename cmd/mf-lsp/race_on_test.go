//go:build race

package main

// raceEnabled: the race detector multiplies memory and time several fold, so
// limits measured on the torture test mean nothing under it.
const raceEnabled = true
