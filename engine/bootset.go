package engine

import "fmt"

// bootSetFilter returns the test that keeps a journal file in the <memory> block.
// (Filled in with the journal package: today's and yesterday's daily, this
// week's weekly, this month's monthly, MEMORY.md and the sticky notes.)
func bootSetFilter(today string) (func(*Entry) bool, error) {
	if today != "" && len(today) != 10 {
		return nil, fmt.Errorf("today %q: want YYYY-MM-DD", today)
	}
	return func(*Entry) bool { return true }, nil
}
