package frontmatter

import "fmt"

// Limits on the frontmatter handed to the YAML parser. A note's frontmatter is
// a handful of keys; goccy/go-yaml spends time and memory per nesting level
// (60 KB of "[[[[…" took 8 s and 2.3 GB), and a memory tree may come from
// anyone. Frontmatter beyond either limit is a Syntax error at its position
// (the frontmatter-invalid finding) and is not parsed.
const (
	// MaxYAMLSize is the most bytes of YAML between the delimiters.
	MaxYAMLSize = 64 << 10
	// MaxYAMLDepth is the deepest nesting of flow ([ {) and block
	// (indentation, "- ") collections taken together.
	MaxYAMLDepth = 64
)

// checkLimits reports the first place where y (at base in the note) goes past
// a limit, before any YAML parser sees it. It over-counts rather than under:
// brackets inside quoted scalars are skipped, but a plain scalar full of
// brackets counts them, which no real frontmatter does 64 levels deep.
func checkLimits(y []byte, base int) *Error {
	if e := checkSize(y, base); e != nil {
		return e
	}
	var indents []int // open block levels, by indentation
	flow := 0
	for pos := 0; pos < len(y); {
		end := pos + lineLen(y, pos)
		line := y[pos:end]
		next := end + 1
		i := 0
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if flow == 0 && i < len(line) && line[i] != '#' && line[i] != '\r' {
			for len(indents) > 0 && indents[len(indents)-1] >= i {
				indents = indents[:len(indents)-1]
			}
			indents = append(indents, i)
			// "- - - x" opens a sequence per dash on one line.
			for i+1 < len(line) && line[i] == '-' && (line[i+1] == ' ' || line[i+1] == '\t') {
				i += 2
				for i < len(line) && line[i] == ' ' {
					i++
				}
				indents = append(indents, i)
			}
		}
		var quote byte
		for j := i; j < len(line); j++ {
			c := line[j]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				} else if c == '\\' && quote == '"' {
					j++
				}
			case c == '"' || c == '\'':
				if j == 0 || line[j-1] == ' ' || line[j-1] == '[' || line[j-1] == '{' || line[j-1] == ',' || line[j-1] == ':' {
					quote = c
				}
			case c == '#' && (j == 0 || line[j-1] == ' '):
				j = len(line)
			case c == '[' || c == '{':
				flow++
			case c == ']' || c == '}':
				if flow > 0 {
					flow--
				}
			}
			if depth := flow + len(indents); depth > MaxYAMLDepth {
				return &Error{Kind: Syntax, Span: Span{base + pos + j, base + pos + j + 1},
					Message: fmt.Sprintf("frontmatter is nested more than %d levels deep: not parsed", MaxYAMLDepth)}
			}
		}
		if depth := flow + len(indents); depth > MaxYAMLDepth {
			return &Error{Kind: Syntax, Span: Span{base + pos, base + end},
				Message: fmt.Sprintf("frontmatter is nested more than %d levels deep: not parsed", MaxYAMLDepth)}
		}
		pos = next
	}
	return nil
}

// checkSize reports frontmatter over MaxYAMLSize, flat or not.
func checkSize(y []byte, base int) *Error {
	if len(y) <= MaxYAMLSize {
		return nil
	}
	return &Error{Kind: Syntax, Span: Span{base, base + max(lineLen(y, 0), 1)},
		Message: fmt.Sprintf("frontmatter is %d bytes, more than the %d KiB a note's frontmatter may have: not parsed", len(y), MaxYAMLSize>>10)}
}

// lineLen is the length of the line starting at pos, without its "\n".
func lineLen(y []byte, pos int) int {
	for i := pos; i < len(y); i++ {
		if y[i] == '\n' {
			return i - pos
		}
	}
	return len(y) - pos
}
