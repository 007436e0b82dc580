package participant_test

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"

	"github.com/magicfrog/mf-lsp/engine/embed"
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/participant/embedenv"
)

// fakeConcepts is the stand-in model's meaning: words of one concept embed
// alike, whatever their letters.
var fakeConcepts = map[string]int{
	"fundraiser": 0, "fundraising": 0, "raise": 0, "money": 0, "donations": 0, "charity": 0, "cause": 0,
	"race": 1, "ran": 1, "run": 1, "running": 1, "10k": 1, "marathon": 1,
	"book": 2, "read": 2, "novel": 2,
}

// fakeVector embeds text as counts of concepts, other words spread thinly
// over hashed buckets.
func fakeVector(text string) []float32 {
	v := make([]float32, 16)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if c, ok := fakeConcepts[w]; ok {
			v[c] += 3
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[4+h.Sum32()%12] += 0.2
	}
	return v
}

// fakeEndpoint is a stand-in for an OpenAI-compatible /v1/embeddings and an
// Ollama /api/embeddings endpoint; it counts the requests and the texts.
type fakeEndpoint struct {
	*httptest.Server
	requests, texts atomic.Int64
	fail            atomic.Bool
}

func newFakeEndpoint(t *testing.T) *fakeEndpoint {
	f := &fakeEndpoint{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if f.fail.Load() {
			http.Error(w, "model not loaded", http.StatusInternalServerError)
			return
		}
		var req struct {
			Model  string   `json:"model"`
			Input  []string `json:"input"`
			Prompt string   `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "stand-in" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/api/embeddings":
			f.texts.Add(1)
			json.NewEncoder(w).Encode(map[string]any{"embedding": fakeVector(req.Prompt)})
		case "/v1/embeddings":
			type item struct {
				Embedding []float32 `json:"embedding"`
				Index     int       `json:"index"`
			}
			var data []item
			for i, in := range req.Input {
				f.texts.Add(1)
				data = append(data, item{fakeVector(in), i})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": data})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

// hybridCorpus: one day holds the answer in other words than the question's;
// the rest is chatter and distractors.
func hybridCorpus() *recallCorpus {
	c := &recallCorpus{today: "2026-07-01", notes: map[string]string{}}
	for i, d := range []string{"2026-06-20", "2026-06-21", "2026-06-22", "2026-06-23"} {
		body := "# " + d + "\n\n## Session 1\n\n- Caroline: I saw a charity race on the news, people were running in costumes.\n- Melanie: the weather has been so strange.\n"
		if i == 2 {
			body += "- Caroline: I ran a 10K on Sunday to raise money for literacy.\n"
		}
		c.notes["journal/"+d+".md"] = body
	}
	return c
}

func providerOf(t *testing.T, f *fakeEndpoint, path string) *embed.Provider {
	p, err := embed.FromEnv(func(k string) string {
		return map[string]string{embed.EnvURL: f.URL + path, embed.EnvModel: "stand-in"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	p.CacheDir = t.TempDir()
	return p
}

// TestHybridSearch: with an embedding provider, a note that shares no word
// with the query is found by meaning and fused with the keyword ranking;
// chunks are embedded once (in memory, then from the disk cache for a new
// participant), both kinds of endpoint serve; a failing endpoint gives the
// keyword answer with a warning.
func TestHybridSearch(t *testing.T) {
	c := hybridCorpus()
	m := recallMemory(t, c)
	const query = "Who collected donations for a fundraiser?"
	keyword := recallParticipant(t, c, m, participant.Options{})
	if _, err := keyword.Search(query, 5); err == nil {
		// "who", "for", "a" are stop words: the query's words are none of the notes'.
		if r, _ := keyword.Search(query, 5); len(r.Hits) != 0 {
			t.Fatalf("keyword search found %+v", r.Hits)
		}
	}
	for _, path := range []string{"/v1/embeddings", "/api/embeddings"} {
		f := newFakeEndpoint(t)
		prov := providerOf(t, f, path)
		if want := map[string]string{"/v1/embeddings": embed.OpenAI, "/api/embeddings": embed.Ollama}[path]; prov.Kind != want {
			t.Fatalf("%s: kind %q, want %q", path, prov.Kind, want)
		}
		p := recallParticipant(t, c, m, participant.Options{Embeddings: prov})
		r, err := p.Search(query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) == 0 || r.Hits[0].Key != "journal/2026-06-22.md" || !strings.Contains(r.Hits[0].Snippet, "raise money for literacy") || len(r.Warnings) != 0 {
			t.Fatalf("%s: hybrid search answered %+v", path, r)
		}
		first := f.texts.Load()
		if _, err := p.Search("Which fundraiser was it?", 5); err != nil {
			t.Fatal(err)
		}
		if got := f.texts.Load() - first; got != 1 {
			t.Errorf("%s: a second search embedded %d texts, want 1 (its query)", path, got)
		}
		again := recallParticipant(t, c, m, participant.Options{Embeddings: prov})
		before := f.texts.Load()
		if _, err := again.Search(query, 5); err != nil {
			t.Fatal(err)
		}
		if got := f.texts.Load() - before; got != 0 {
			t.Errorf("%s: a new participant embedded %d texts, want 0 (all cached on disk)", path, got)
		}
		// Keywords still count: the distractors' words rank them too.
		r, _ = p.Search("charity race", 5)
		if r.Total != len(c.notes) {
			t.Errorf("%s: charity race: total %d, want %d", path, r.Total, len(c.notes))
		}
	}

	// A failing endpoint: the keyword answer, and a warning.
	f := newFakeEndpoint(t)
	f.fail.Store(true)
	p := recallParticipant(t, c, m, participant.Options{Embeddings: providerOf(t, f, "/v1/embeddings")})
	const q2 = "What cause did Caroline run the charity race for?"
	got, err := p.Search(q2, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := keyword.Search(q2, 5)
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "500") || !strings.Contains(got.Warnings[0], "keywords only") {
		t.Errorf("warnings %q", got.Warnings)
	}
	got.Warnings = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("failing endpoint answered %+v, want the keyword answer %+v", got, want)
	}
}

// TestNoProviderNoFetch: without MAGICFROG_EMBEDDINGS_URL there is no
// provider and a search sends nothing; set, the same search asks the
// endpoint (so the counter would see a request). The participant reads no
// environment itself: embedenv.Set, what the searching front ends call, does.
func TestNoProviderNoFetch(t *testing.T) {
	c := hybridCorpus()
	m := recallMemory(t, c)
	f := newFakeEndpoint(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(embed.EnvURL, "")
	t.Setenv(embed.EnvModel, "stand-in")
	fromEnv := func() participant.Options {
		var o participant.Options
		embedenv.Set(&o, os.Getenv)
		return o
	}
	p := recallParticipant(t, c, m, fromEnv())
	if _, err := p.Search("charity race", 5); err != nil {
		t.Fatal(err)
	}
	if n := f.requests.Load(); n != 0 {
		t.Fatalf("no provider configured, and %d requests were sent", n)
	}
	t.Setenv(embed.EnvURL, f.URL+"/v1/embeddings")
	p = recallParticipant(t, c, m, fromEnv())
	if _, err := p.Search("charity race", 5); err != nil {
		t.Fatal(err)
	}
	if f.requests.Load() == 0 {
		t.Fatal("a configured provider was not asked")
	}
	// Without embedenv, the environment is not read: nothing is asked.
	before := f.requests.Load()
	p = recallParticipant(t, c, m, participant.Options{})
	if _, err := p.Search("charity race", 5); err != nil {
		t.Fatal(err)
	}
	if n := f.requests.Load() - before; n != 0 {
		t.Fatalf("a participant without a provider sent %d requests", n)
	}
	// A bad configuration is a warning, and search answers by keywords.
	t.Setenv(embed.EnvURL, "ftp://nowhere")
	p = recallParticipant(t, c, m, fromEnv())
	if w := strings.Join(p.Warnings(), "\n"); !strings.Contains(w, "embeddings") {
		t.Errorf("warnings %q", w)
	}
	if r, err := p.Search("charity race", 5); err != nil || len(r.Hits) == 0 {
		t.Errorf("search with a bad provider: %+v %v", r, err)
	}
}
