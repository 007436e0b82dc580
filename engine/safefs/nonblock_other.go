//go:build !unix

package safefs

// ONonblock: no FIFOs to block on here.
const ONonblock = 0

const oNofollow = 0
