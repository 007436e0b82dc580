package engine

// TokenizerRuns is how many texts the tokenizer has counted in this process.
func TokenizerRuns() int64 { return tokenizerRuns.Load() }

// WalkByPath makes loads walk by path (filepath.WalkDir) instead of through
// opened folders, until the test ends.
func WalkByPath(t interface{ Cleanup(func()) }) {
	walkByPath = true
	t.Cleanup(func() { walkByPath = false })
}
