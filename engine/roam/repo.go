package roam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// branch is the branch of the remote that holds the portable tree.
const branch = "main"

var (
	branchRef = plumbing.NewBranchReferenceName(branch)
	trackRef  = plumbing.NewRemoteReferenceName("origin", branch)
)

// gitRepo is the local repository in <data>/sync/repo.git: a bare store of
// every version this machine has fetched or pushed (the merge bases come
// from it) with the remote-tracking branch.
type gitRepo struct {
	r      *git.Repository
	remote *git.Remote
	url    string
	auth   transport.AuthMethod
	// staged holds new objects until flush writes them as one packfile:
	// go-git writes each loose object through a temporary file, which made
	// a first sync of 10,000 notes take half a minute.
	staged *memory.Storage
	// local is the endpoint of a remote folder on this machine, served
	// in-process (localTransport); nil for a remote over the network, which
	// remote reaches through go-git's own transports.
	local *transport.Endpoint
}

func openRepo(data, url string, auth transport.AuthMethod) (*gitRepo, error) {
	dir := repoDir(data)
	r, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		r, err = git.PlainInitWithOptions(dir, &git.PlainInitOptions{Bare: true, InitOptions: git.InitOptions{DefaultBranch: branchRef}})
	}
	if err != nil {
		return nil, fmt.Errorf("local sync repository %s: %w", dir, err)
	}
	g := &gitRepo{r: r, url: url, auth: auth, staged: memory.NewStorage(), local: localEndpoint(url)}
	if url != "" && g.local == nil {
		g.remote = git.NewRemote(r.Storer, &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	}
	return g, nil
}

// fetch brings the remote branch into the local repository and returns its
// head; the zero hash when the remote has no such branch yet.
func (g *gitRepo) fetch(ctx context.Context) (plumbing.Hash, error) {
	err := g.fetchOnce(ctx)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		// The remote was rewritten and no longer has the commit this machine
		// tracked: forget it and fetch from scratch.
		if rerr := g.r.Storer.RemoveReference(trackRef); rerr == nil {
			err = g.fetchOnce(ctx)
		}
	}
	var noMatch git.NoMatchingRefSpecError
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.As(err, &noMatch), errors.Is(err, errNoRemoteBranch):
		return plumbing.ZeroHash, nil
	default:
		return plumbing.ZeroHash, fmt.Errorf("fetch from %s: %w", g.url, err)
	}
	return g.tracked()
}

func (g *gitRepo) fetchOnce(ctx context.Context) error {
	if g.local != nil {
		return fetchLocal(ctx, g.r.Storer, g.local, branchRef, trackRef)
	}
	return g.remote.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs:   []config.RefSpec{config.RefSpec("+" + branchRef.String() + ":" + trackRef.String())},
		Tags:       git.NoTags,
		Auth:       g.auth,
	})
}

// tracked is the remote head as of the last fetch (zero when none).
func (g *gitRepo) tracked() (plumbing.Hash, error) {
	ref, err := g.r.Reference(trackRef, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// push makes commit the remote branch. The remote must still be at old (the
// head the merge was made against): a remote that moved is a rejected push,
// and the caller fetches, merges and tries again.
func (g *gitRepo) push(ctx context.Context, commit plumbing.Hash) error {
	// The commit is pushed by hash: a local branch pointing at a commit the
	// remote lacks would be offered as a "have" by the next fetch, which
	// go-git's in-process server answers with "object not found".
	var err error
	if g.local != nil {
		err = pushLocal(ctx, g.r.Storer, g.local, commit, branchRef, false)
	} else {
		err = g.remote.PushContext(ctx, &git.PushOptions{
			RemoteName: "origin",
			RefSpecs:   []config.RefSpec{config.RefSpec(commit.String() + ":" + branchRef.String())},
			Auth:       g.auth,
		})
	}
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("push to %s: %w", g.url, err)
	}
	pointLocalHeadAtBranch(g.url)
	return g.r.Storer.SetReference(plumbing.NewHashReference(trackRef, commit))
}

// pointLocalHeadAtBranch makes a local remote's HEAD name the branch sync
// pushes when it names a branch the remote does not have: `git init --bare`
// leaves HEAD on master (or init.defaultBranch), and a `git clone` of such a
// remote checks nothing out. A HEAD naming an existing branch is the owner's
// choice and stays. A remote over the network sets its own HEAD (a git host
// takes the first branch pushed); the protocol gives no way to change it.
func pointLocalHeadAtBranch(url string) {
	p, ok := isLocalURL(url)
	if !ok {
		return
	}
	r, err := git.PlainOpen(p)
	if err != nil {
		return
	}
	head, err := r.Storer.Reference(plumbing.HEAD)
	if err != nil || head.Type() != plumbing.SymbolicReference || head.Target() == branchRef {
		return
	}
	if _, err := r.Storer.Reference(head.Target()); err == nil {
		return
	}
	_ = r.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, branchRef)) // a clone's convenience: a failure costs nothing else
}

// treeFile is one file of a commit's tree.
type treeFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// files lists every file of a commit, by slash path; none for the zero hash.
func (g *gitRepo) files(commit plumbing.Hash) (map[string]treeFile, error) {
	out := map[string]treeFile{}
	if commit.IsZero() {
		return out, nil
	}
	c, err := g.r.CommitObject(commit)
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	// A name go-git refuses (a control character, "..", ".git") would stop
	// the walk, and one bad entry every sync: each path is checked by the
	// sync instead (mapping.local), and one that is no note is skipped.
	w.SkipPathValidation()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if e.Mode == filemode.Dir {
			continue
		}
		out[name] = treeFile{hash: e.Hash, mode: e.Mode}
	}
}

// blob reads a blob's content; one larger than blobLimit is refused from its
// header, unread.
func (g *gitRepo) blob(h plumbing.Hash) ([]byte, error) {
	if n, err := g.size(h); err == nil && n > blobLimit {
		return nil, fmt.Errorf("object %s has %d bytes: %w", h, n, errTooLarge)
	}
	o, err := g.staged.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		o, err = g.r.Storer.EncodedObject(plumbing.BlobObject, h)
	}
	if err != nil {
		return nil, err
	}
	rd, err := o.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// blobHash is the git blob id of content: the content hash notes are
// compared by.
func blobHash(content []byte) plumbing.Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, content)
}

// has reports whether an object is stored or staged.
func (g *gitRepo) has(h plumbing.Hash) bool {
	return g.staged.HasEncodedObject(h) == nil || g.r.Storer.HasEncodedObject(h) == nil
}

// put stages an object unless it is there already.
func (g *gitRepo) put(t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, content)
	if g.has(h) {
		return h, nil
	}
	o := g.staged.NewEncodedObject()
	o.SetType(t)
	o.SetSize(int64(len(content)))
	w, err := o.Writer()
	if err != nil {
		return h, err
	}
	if _, err := w.Write(content); err != nil {
		w.Close()
		return h, err
	}
	if err := w.Close(); err != nil {
		return h, err
	}
	return g.staged.SetEncodedObject(o)
}

// putEncoded stores an object given as an encoder (a tree or a commit).
func (g *gitRepo) putEncoded(enc interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	o := g.staged.NewEncodedObject()
	if err := enc.Encode(o); err != nil {
		return plumbing.ZeroHash, err
	}
	if g.has(o.Hash()) {
		return o.Hash(), nil
	}
	return g.staged.SetEncodedObject(o)
}

// flush writes the staged objects into the repository as one packfile.
func (g *gitRepo) flush() error {
	if len(g.staged.Objects) == 0 {
		return nil
	}
	hashes := make([]plumbing.Hash, 0, len(g.staged.Objects))
	for h := range g.staged.Objects {
		hashes = append(hashes, h)
	}
	pw, ok := g.r.Storer.(storer.PackfileWriter)
	if !ok {
		for _, h := range hashes {
			if _, err := g.r.Storer.SetEncodedObject(g.staged.Objects[h]); err != nil {
				return err
			}
		}
	} else {
		w, err := pw.PackfileWriter()
		if err != nil {
			return err
		}
		if _, err := packfile.NewEncoder(w, g.staged, false).Encode(hashes, 0); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	g.staged = memory.NewStorage()
	return nil
}

// buildTree stores the tree objects for files and returns the root tree.
func (g *gitRepo) buildTree(files map[string]treeFile) (plumbing.Hash, error) {
	type dir struct {
		entries []object.TreeEntry
		subdirs map[string]bool
	}
	dirs := map[string]*dir{"": {subdirs: map[string]bool{}}}
	var ensure func(p string) *dir
	ensure = func(p string) *dir {
		if d, ok := dirs[p]; ok {
			return d
		}
		d := &dir{subdirs: map[string]bool{}}
		dirs[p] = d
		parent := path.Dir(p)
		if parent == "." {
			parent = ""
		}
		ensure(parent).subdirs[p] = true
		return d
	}
	for p, f := range files {
		parent := path.Dir(p)
		if parent == "." {
			parent = ""
		}
		d := ensure(parent)
		d.entries = append(d.entries, object.TreeEntry{Name: path.Base(p), Mode: f.mode, Hash: f.hash})
	}
	var write func(p string) (plumbing.Hash, error)
	write = func(p string) (plumbing.Hash, error) {
		d := dirs[p]
		for sub := range d.subdirs {
			h, err := write(sub)
			if err != nil {
				return h, err
			}
			d.entries = append(d.entries, object.TreeEntry{Name: path.Base(sub), Mode: filemode.Dir, Hash: h})
		}
		sort.Sort(object.TreeEntrySorter(d.entries))
		return g.putEncoded(&object.Tree{Entries: d.entries})
	}
	return write("")
}

// commit stores a commit of tree on top of parents (zero hashes are left out).
func (g *gitRepo) commit(tree plumbing.Hash, parents []plumbing.Hash, msg, machine string, when time.Time) (plumbing.Hash, error) {
	sig := object.Signature{Name: "mf-lsp", Email: machine + "@machine.magicfrog", When: when}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	for _, p := range parents {
		if !p.IsZero() {
			c.ParentHashes = append(c.ParentHashes, p)
		}
	}
	return g.putEncoded(c)
}

// treeOf is the root tree of a commit (zero for none).
func (g *gitRepo) treeOf(commit plumbing.Hash) plumbing.Hash {
	if commit.IsZero() {
		return plumbing.ZeroHash
	}
	c, err := g.r.CommitObject(commit)
	if err != nil {
		return plumbing.ZeroHash
	}
	return c.TreeHash
}

// isLocalURL reports whether a remote is a folder on this machine (a path or
// file:// URL), and which.
func isLocalURL(url string) (string, bool) {
	if p, ok := strings.CutPrefix(url, "file://"); ok {
		return p, true
	}
	if strings.Contains(url, "://") {
		return "", false
	}
	// scp-like user@host:path is ssh; a Windows drive letter is not.
	if i := strings.IndexByte(url, ':'); i > 1 && !strings.ContainsAny(url[:i], `/\`) {
		return "", false
	}
	return url, true
}

// ensureLocalRemote makes a bare repository at a local remote path that does
// not exist yet or is an empty folder ("a folder on a shared disk"). It
// reports whether it made one.
func ensureLocalRemote(url string) (bool, error) {
	p, ok := isLocalURL(url)
	if !ok {
		return false, nil
	}
	entries, err := os.ReadDir(p)
	switch {
	case err == nil && len(entries) > 0:
		return false, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("remote %s: %w", url, err)
	}
	if _, err := os.Stat(filepath.Dir(filepath.Clean(p))); err != nil {
		return false, fmt.Errorf("remote %s: its parent folder does not exist", url)
	}
	_, err = git.PlainInitWithOptions(p, &git.PlainInitOptions{Bare: true, InitOptions: git.InitOptions{DefaultBranch: branchRef}})
	if err != nil {
		return false, fmt.Errorf("make a bare repository at %s: %w", p, err)
	}
	return true, nil
}

// gitTracksMagicfrog reports whether the git repository around a project
// tracks anything under its .magicfrog/, and where that repository is.
func gitTracksMagicfrog(project string) (bool, string) {
	r, err := git.PlainOpenWithOptions(project, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return false, ""
	}
	wt, err := r.Worktree()
	if err != nil {
		return false, ""
	}
	root := wt.Filesystem.Root()
	rel, err := filepath.Rel(root, project)
	if err != nil {
		return false, ""
	}
	prefix := path.Join(filepath.ToSlash(rel), ".magicfrog") + "/"
	idx, err := r.Storer.Index()
	if err != nil {
		return false, ""
	}
	for _, e := range idx.Entries {
		if strings.HasPrefix(e.Name, prefix) {
			return true, root
		}
	}
	return false, ""
}
