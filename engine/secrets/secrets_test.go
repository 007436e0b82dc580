package secrets

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Test tokens are assembled at run time so that this file is not itself a
// finding for anyone's secret scanner.
var (
	githubPAT = "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"
	awsKey    = "AKIA" + "Z7QWERTYUIOPASDF"
	slackTok  = "xoxb-" + "123456789012-1234567890123-" + strings.Repeat("aBcD", 6)
	privKey   = "-----BEGIN " + "RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEowIBAAKCAQEAx8f3k2JmQ9vT0pLzW1sN4bY6rU7cE5aH2dG8iK0oP3qR6tV9wX1yZ4\n", 5) + "-----END RSA PRIVATE KEY-----\n"
)

func TestScanRuleClasses(t *testing.T) {
	for _, tc := range []struct {
		name, text, rule string
		line             int
	}{
		{"github token", "# Accounts\n\ntoken: " + githubPAT + "\n", "github-pat", 3},
		{"aws key", "aws_access_key_id = " + awsKey + "\n", "aws-access-token", 1},
		{"slack bot token", "slack " + slackTok + "\n", "slack-bot-token", 1},
		{"private key", "key:\n" + privKey, "private-key", 2},
	} {
		fs, err := Scan([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) == 0 {
			t.Errorf("%s: no finding", tc.name)
			continue
		}
		if fs[0].Rule != tc.rule || fs[0].Line != tc.line {
			t.Errorf("%s: got %+v, want rule %s line %d", tc.name, fs[0], tc.rule, tc.line)
		}
		if got := tc.text[fs[0].Start:fs[0].End]; !strings.Contains(tc.text, got) || got == "" {
			t.Errorf("%s: span %q", tc.name, got)
		}
	}
}

func TestScanAllowAndClean(t *testing.T) {
	for _, text := range []string{
		"Prefer functional array methods over for loops.\n",
		"The laptop is a ThinkPad; the desktop runs Debian.\n",
		"example: " + githubPAT + " # gitleaks:allow\n",
	} {
		fs, err := Scan([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 0 {
			t.Errorf("%q: %+v", text, fs)
		}
	}
}

// BenchmarkScan scans notes it has not seen (a first sync, mf-lsp check);
// BenchmarkScanCached the same note again (an editor re-checking).
func BenchmarkScan(b *testing.B) {
	for _, size := range []int{1, 40} {
		body := strings.Repeat("Prefer small functions and clear names; test first.\n", size)
		b.Run(fmt.Sprintf("lines=%d", size), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Scan([]byte(body + strconv.Itoa(i))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("cached", func(b *testing.B) {
		text := []byte("Prefer small functions.\n")
		for i := 0; i < b.N; i++ {
			if _, err := Scan(text); err != nil {
				b.Fatal(err)
			}
		}
	})
}
