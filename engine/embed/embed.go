// Package embed is the optional embedding provider of search (issue 26): an
// OpenAI-compatible `/v1/embeddings` or an Ollama `/api/embeddings` endpoint
// the user names in the environment. Vectors are cached in the user's cache
// directory by a hash of the model and the text: derived, never a source of
// truth, deleted at no cost. Without configuration there is no provider, and
// nothing is fetched.
package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The environment that configures a provider.
const (
	EnvURL   = "MAGICFROG_EMBEDDINGS_URL"   // the endpoint; none: no provider
	EnvModel = "MAGICFROG_EMBEDDINGS_MODEL" // the model's name, sent with every request
	EnvKey   = "MAGICFROG_EMBEDDINGS_KEY"   // a bearer token (OpenAI-compatible endpoints), optional
)

// Kinds of endpoint.
const (
	OpenAI = "openai" // POST {"model", "input": [texts]} → {"data": [{"embedding", "index"}]}
	Ollama = "ollama" // POST {"model", "prompt"} → {"embedding"}, one text a request
)

// Provider embeds texts through one endpoint, with a cache.
type Provider struct {
	URL, Model, Key string
	Kind            string // OpenAI or Ollama: an URL ending in /api/embeddings is Ollama's
	CacheDir        string // "": no cache on disk
	Client          *http.Client
}

// maxBatch is how many texts an OpenAI-compatible request carries.
const maxBatch = 64

// FromEnv is the provider the environment configures, or nil when
// MAGICFROG_EMBEDDINGS_URL is unset or blank. getenv is os.Getenv outside
// tests. A URL that is not http(s) or a missing model is an error.
func FromEnv(getenv func(string) string) (*Provider, error) {
	url := strings.TrimSpace(getenv(EnvURL))
	if url == "" {
		return nil, nil
	}
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, fmt.Errorf("%s %q: want an http:// or https:// URL", EnvURL, url)
	}
	model := strings.TrimSpace(getenv(EnvModel))
	if model == "" {
		return nil, fmt.Errorf("%s is set but %s is not: name the embedding model", EnvURL, EnvModel)
	}
	p := &Provider{URL: url, Model: model, Key: getenv(EnvKey), Kind: OpenAI,
		Client: &http.Client{Timeout: 30 * time.Second}}
	if strings.HasSuffix(strings.TrimRight(url, "/"), "/api/embeddings") {
		p.Kind = Ollama
	}
	if dir, err := os.UserCacheDir(); err == nil {
		p.CacheDir = filepath.Join(dir, "mf-lsp", "embeddings")
	}
	return p, nil
}

// Embed returns one vector per text, normalized to length 1, from the cache
// where it has them and from the endpoint for the rest.
func (p *Provider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []int
	for i, t := range texts {
		if v := p.cached(t); v != nil {
			out[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	for len(missing) > 0 {
		n := len(missing)
		if p.Kind == Ollama {
			n = 1
		}
		n = min(n, maxBatch)
		batch := make([]string, n)
		for j := range batch {
			batch[j] = texts[missing[j]]
		}
		vecs, err := p.fetch(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, v := range vecs {
			normalize(v)
			out[missing[j]] = v
			p.store(batch[j], v)
		}
		missing = missing[n:]
	}
	return out, nil
}

// maxResponse bounds what an endpoint may answer.
const maxResponse = 64 << 20

func (p *Provider) fetch(ctx context.Context, texts []string) ([][]float32, error) {
	var req any = map[string]any{"model": p.Model, "input": texts}
	if p.Kind == Ollama {
		req = map[string]any{"model": p.Model, "prompt": texts[0]}
	}
	body, _ := json.Marshal(req)
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	if p.Key != "" {
		r.Header.Set("Authorization", "Bearer "+p.Key)
	}
	client := p.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s: %.200s", p.URL, resp.Status, data)
	}
	if len(data) > maxResponse {
		return nil, fmt.Errorf("%s answered more than %d MiB", p.URL, maxResponse>>20)
	}
	var vecs [][]float32
	if p.Kind == Ollama {
		var o struct {
			Embedding []float32 `json:"embedding"`
		}
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, fmt.Errorf("%s: %w", p.URL, err)
		}
		vecs = [][]float32{o.Embedding}
	} else {
		var o struct {
			Data []struct {
				Embedding []float32 `json:"embedding"`
				Index     int       `json:"index"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &o); err != nil {
			return nil, fmt.Errorf("%s: %w", p.URL, err)
		}
		if len(o.Data) != len(texts) {
			return nil, fmt.Errorf("%s: %d embeddings for %d texts", p.URL, len(o.Data), len(texts))
		}
		vecs = make([][]float32, len(texts))
		for _, d := range o.Data {
			if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
				return nil, fmt.Errorf("%s: embedding index %d out of place", p.URL, d.Index)
			}
			vecs[d.Index] = d.Embedding
		}
	}
	for _, v := range vecs {
		if len(v) == 0 {
			return nil, errors.New(p.URL + ": an empty embedding")
		}
	}
	return vecs, nil
}

func normalize(v []float32) {
	n := 0.0
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n = math.Sqrt(n); n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / n)
		}
	}
}

// cachePath is where text's vector is cached: by a hash of model and text.
func (p *Provider) cachePath(text string) string {
	h := sha256.Sum256([]byte(p.Model + "\x00" + text))
	name := hex.EncodeToString(h[:])
	return filepath.Join(p.CacheDir, name[:2], name)
}

func (p *Provider) cached(text string) []float32 {
	if p.CacheDir == "" {
		return nil
	}
	data, err := os.ReadFile(p.cachePath(text))
	if err != nil || len(data) == 0 || len(data)%4 != 0 {
		return nil
	}
	v := make([]float32, len(data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return v
}

// store caches a vector; a cache that cannot be written is no error (it is
// only a cache), and a torn file is never read (written aside, renamed).
func (p *Provider) store(text string, v []float32) {
	if p.CacheDir == "" {
		return
	}
	path := p.cachePath(text)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	data := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
