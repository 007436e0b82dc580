package engine

// TokenizerRuns is how many texts the tokenizer has counted in this process.
func TokenizerRuns() int64 { return tokenizerRuns.Load() }
