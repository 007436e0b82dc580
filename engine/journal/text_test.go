package journal

import "testing"

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"  Hello, World!  ":        "hello world",
		"CHECK certificate-expiry": "check certificate expiry",
		"Größe ändern — jetzt":     "größe ändern jetzt",
		"":                         "",
		"--- ***":                  "",
		"v1.2 rc_3":                "v1 2 rc 3",
	} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := sigWords("The Parsers and the parser, keys; class 2026 of"); len(got) != 3 || got[0] != "parser" || got[1] != "key" || got[2] != "class" {
		t.Errorf("sigWords = %q", got)
	}
	if got := truncate("alpha beta gamma delta", 15); got != "alpha beta…" {
		t.Errorf("truncate = %q", got)
	}
}
