// Command gen writes vocab.bin, o200k_base's tokens in rank order, each a
// uvarint length and its bytes, from tiktoken-go's codec (the oracle the
// tests compare against). Run it from the repository's root with
// go run ./engine/internal/o200k/gen.
package main

import (
	"encoding/binary"
	"log"
	"os"

	"github.com/tiktoken-go/tokenizer"
)

// ranks is o200k_base's ordinary vocabulary: ids 0..199997, no gaps (the
// special tokens start at 199999 and are not counted text).
const ranks = 199998

func main() {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		log.Fatal(err)
	}
	var out []byte
	for id := uint(0); id < ranks; id++ {
		s, err := c.Decode([]uint{id})
		if err != nil {
			log.Fatalf("rank %d: %v", id, err)
		}
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	if err := os.WriteFile("engine/internal/o200k/vocab.bin", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
