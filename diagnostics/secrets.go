package diagnostics

import (
	"fmt"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/secrets"
	"github.com/magicfrog/mf-lsp/engine/secrets/scancache"
)

// CodeSecret: gitleaks' default rules found a secret in the note. Sync holds
// such a chain note back; the journal's rule is "no secrets in sticky notes".
const CodeSecret = "secret"

// secrets flags every secret in the note, on the secret itself. A line that
// says gitleaks:allow is not flagged (the detector skips it). The scan is
// advisory here (sync scans again), so a text found clean by an earlier
// process is not scanned again (secrets.ScanAdvisory).
func (c *checker) secrets() {
	fs, err := c.scanSecrets()
	if err != nil {
		return // the rules did not load: sync refuses to send anything, and says so
	}
	sev, why := Error, "mf-lsp sync holds this note back until it is gone"
	if c.e.Dimension == engine.Device {
		sev, why = Warning, "device notes never leave the machine, but agents read this note"
	}
	for _, f := range fs {
		c.add(Finding{
			Span:     frontmatter.Span{Start: f.Start, End: f.End},
			Severity: sev,
			Code:     CodeSecret,
			Message:  fmt.Sprintf("secret (%s): %s; keep it in a password manager, or end the line with \"gitleaks:allow\" if it is not a secret", f.Rule, why),
			Data:     map[string]any{"rule": f.Rule, "line": f.Line},
		})
	}
}

// scanSecrets scans the note keyed by the SHA-256 the engine took when it
// read it (Note.Sum), so that a check of a warm tree hashes no note twice; a
// note built without one (a zero sum) is hashed here. The scan cache is the
// memory's (engine.Options.SecretScans): the CLI's checks have one, the
// server's none.
func (c *checker) scanSecrets() ([]secrets.Finding, error) {
	var sc *scancache.Cache
	if c.in.Memory != nil {
		sc = c.in.Memory.SecretScans()
	}
	if sum := c.e.Sum(); sum != ([32]byte{}) {
		return secrets.ScanAdvisoryHashed(sc, c.src, sum)
	}
	return secrets.ScanAdvisory(sc, c.src)
}
