//go:build !race

package roam

const raceEnabled = false
