package roam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/gofrs/flock"
)

// ErrRejected: the remote branch moved since it was fetched (another machine
// pushed first). The sync fetches, merges and pushes again.
var ErrRejected = errors.New("the remote branch moved since it was fetched (fetch first)")

// localTransport serves file remotes in-process, as a value the sync's fetch
// and push drive themselves (fetchLocal, pushLocal): nothing is installed in
// go-git's process-wide protocol table. go-git's own file transport runs the
// git-upload-pack and git-receive-pack binaries; its in-process server does
// not, but it updates a branch without checking the old value, so two
// machines pushing to one shared folder at once could each "succeed" and one
// commit would be lost. lockedFile adds that check, under a lock file in the
// remote repository.
func localTransport() transport.Transport {
	return lockedFile{server.NewClient(atomicLoader{})}
}

// localEndpoint is the endpoint of a remote the in-process transport serves
// (go-git's "file" protocol: a path or a file:// URL), or nil for any other.
func localEndpoint(url string) *transport.Endpoint {
	ep, err := transport.NewEndpoint(url)
	if err != nil || ep.Protocol != "file" {
		return nil
	}
	return ep
}

// errNoRemoteBranch: the remote has references, but not the branch fetched.
var errNoRemoteBranch = errors.New("the remote has no such branch")

// fetchLocal brings branch src of the local repository at ep into local as
// dst (forced, as "+src:dst" would), with the objects it needs: what go-git's
// Remote.Fetch does over the installed transport, over the value instead. It
// returns git.NoErrAlreadyUpToDate when dst already named src's head,
// transport.ErrEmptyRemoteRepository or errNoRemoteBranch when there is
// nothing to fetch.
func fetchLocal(ctx context.Context, local storage.Storer, ep *transport.Endpoint, src, dst plumbing.ReferenceName) (err error) {
	s, err := localTransport().NewUploadPackSession(ep, nil)
	if err != nil {
		return err
	}
	defer closeInto(s, &err)
	ar, refs, err := advertised(ctx, s)
	if err != nil {
		return err
	}
	head, err := refs.Reference(src)
	if err != nil {
		return errNoRemoteBranch
	}
	if cur, err := local.Reference(dst); err == nil && cur.Hash() == head.Hash() {
		if _, err := local.EncodedObject(plumbing.AnyObject, head.Hash()); err == nil {
			return git.NoErrAlreadyUpToDate
		}
	}
	if _, err := local.EncodedObject(plumbing.AnyObject, head.Hash()); err != nil {
		req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
		if ar.Capabilities.Supports(capability.NoProgress) {
			if err := req.Capabilities.Set(capability.NoProgress); err != nil {
				return err
			}
		}
		req.Wants = []plumbing.Hash{head.Hash()}
		if req.Haves, err = localTips(local); err != nil {
			return err
		}
		if err := fetchPack(ctx, s, local, req); err != nil {
			return err
		}
	}
	return local.SetReference(plumbing.NewHashReference(dst, head.Hash()))
}

// localTips are the heads of local's branches, what a fetch offers as
// "haves" (go-git offers every local reference).
func localTips(local storage.Storer) ([]plumbing.Hash, error) {
	iter, err := local.IterReferences()
	if err != nil {
		return nil, err
	}
	seen := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && !seen[r.Hash()] {
			if _, err := local.EncodedObject(plumbing.AnyObject, r.Hash()); err == nil {
				seen[r.Hash()] = true
				out = append(out, r.Hash())
			}
		}
		return nil
	})
	return out, err
}

// fetchPack reads the pack an upload-pack request is answered with into local.
func fetchPack(ctx context.Context, s transport.UploadPackSession, local storage.Storer, req *packp.UploadPackRequest) (err error) {
	resp, err := s.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil
	}
	if err != nil {
		return err
	}
	defer closeInto(resp, &err)
	var r io.Reader = resp
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		r = sideband.NewDemuxer(sideband.Sideband64k, resp)
	case req.Capabilities.Supports(capability.Sideband):
		r = sideband.NewDemuxer(sideband.Sideband, resp)
	}
	return packfile.UpdateObjectStorage(local, r)
}

// pushLocal makes commit the branch dst of the local repository at ep, with
// the objects it lacks, as go-git's Remote.Push of "commit:dst" (or, with
// force, "+commit:dst") does over the installed transport. Without force the
// remote branch must be an ancestor of commit (fastForward); the receiving
// side checks, under the remote's push lock, that the branch is still what it
// advertised (ErrRejected). git.NoErrAlreadyUpToDate when it already is
// commit.
func pushLocal(ctx context.Context, local storage.Storer, ep *transport.Endpoint, commit plumbing.Hash, dst plumbing.ReferenceName, force bool) (err error) {
	s, err := localTransport().NewReceivePackSession(ep, nil)
	if err != nil {
		return err
	}
	defer closeInto(s, &err)
	ar, refs, err := advertised(ctx, s)
	if err != nil {
		return err
	}
	cmd := &packp.Command{Name: dst, New: commit}
	if ref, err := refs.Reference(dst); err == nil {
		cmd.Old = ref.Hash()
	}
	if cmd.Old == commit {
		return git.NoErrAlreadyUpToDate
	}
	if !force && !cmd.Old.IsZero() {
		if err := fastForward(local, dst, cmd.Old, commit); err != nil {
			return err
		}
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	req.Commands = []*packp.Command{cmd}
	var haves []plumbing.Hash
	for _, r := range refs {
		if r.Type() == plumbing.HashReference {
			haves = append(haves, r.Hash())
		}
	}
	remote, err := atomicLoader{}.Load(ep)
	if err != nil {
		return err
	}
	hashes, err := revlist.ObjectsWithStorageForIgnores(local, remote, []plumbing.Hash{commit}, haves)
	if err != nil {
		return err
	}
	cfg, err := local.Config()
	if err != nil {
		return err
	}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		_, err := packfile.NewEncoder(wr, local, !ar.Capabilities.Supports(capability.OFSDelta)).Encode(hashes, cfg.Pack.Window)
		if err != nil {
			done <- wr.CloseWithError(err)
			return
		}
		done <- wr.Close()
	}()
	rs, err := s.ReceivePack(ctx, req)
	if err != nil {
		rd.Close() // the encoder's writes end
		<-done
		return err
	}
	if err := <-done; err != nil {
		return err
	}
	if rs != nil {
		return rs.Error()
	}
	return nil
}

// fastForward is nil when old is an ancestor of commit in local. A remote
// head this repository never fetched is one the remote moved to since the
// fetch (ErrRejected: fetch, merge and push again); one it knows that commit
// does not descend from is not a fast-forward, as go-git's push says.
func fastForward(local storage.Storer, dst plumbing.ReferenceName, old, commit plumbing.Hash) error {
	oc, err := object.GetCommit(local, old)
	if err != nil {
		return fmt.Errorf("%s: %w", dst, ErrRejected)
	}
	nc, err := object.GetCommit(local, commit)
	if err != nil {
		return err
	}
	if ok, err := oc.IsAncestor(nc); err != nil || !ok {
		return fmt.Errorf("non-fast-forward update: %s", dst)
	}
	return nil
}

// advertised is what a session's remote advertises: capabilities and refs.
func advertised(ctx context.Context, s interface {
	AdvertisedReferencesContext(context.Context) (*packp.AdvRefs, error)
}) (*packp.AdvRefs, memory.ReferenceStorage, error) {
	ar, err := s.AdvertisedReferencesContext(ctx)
	if err != nil {
		return nil, nil, err
	}
	refs, err := ar.AllReferences()
	return ar, refs, err
}

// closeInto closes c, keeping the first error in *err.
func closeInto(c io.Closer, err *error) {
	if cerr := c.Close(); *err == nil {
		*err = cerr
	}
}

type lockedFile struct{ inner transport.Transport }

func (t lockedFile) NewUploadPackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.UploadPackSession, error) {
	return t.inner.NewUploadPackSession(ep, auth)
}

func (t lockedFile) NewReceivePackSession(ep *transport.Endpoint, auth transport.AuthMethod) (transport.ReceivePackSession, error) {
	s, err := t.inner.NewReceivePackSession(ep, auth)
	if err != nil {
		return nil, err
	}
	return &lockedReceive{ReceivePackSession: s, ep: ep}, nil
}

type lockedReceive struct {
	transport.ReceivePackSession
	ep *transport.Endpoint
}

// pushLockWait bounds the wait for another machine's push to the same folder.
const pushLockWait = 30 * time.Second

func (s *lockedReceive) ReceivePack(ctx context.Context, req *packp.ReferenceUpdateRequest) (*packp.ReportStatus, error) {
	lk := flock.New(filepath.Join(s.ep.Path, "mf-lsp-push.lock"))
	wait, cancel := context.WithTimeout(ctx, pushLockWait)
	defer cancel()
	ok, err := lk.TryLockContext(wait, 20*time.Millisecond)
	if err != nil || !ok {
		closePack(req)
		return nil, fmt.Errorf("lock %s for pushing: %v", s.ep.Path, err)
	}
	defer lk.Unlock()
	sto, err := atomicLoader{}.Load(s.ep)
	if err != nil {
		closePack(req)
		return nil, err
	}
	for _, c := range req.Commands {
		cur := plumbing.ZeroHash
		ref, err := sto.Reference(c.Name)
		switch {
		case err == nil:
			cur = ref.Hash()
		case !errors.Is(err, plumbing.ErrReferenceNotFound):
			closePack(req)
			return nil, err
		}
		if cur != c.Old {
			closePack(req)
			rs := packp.NewReportStatus()
			rs.UnpackStatus = "ok"
			rs.CommandStatuses = []*packp.CommandStatus{{ReferenceName: c.Name, Status: "fetch first"}}
			return rs, fmt.Errorf("%s: %w", c.Name, ErrRejected)
		}
	}
	return s.ReceivePackSession.ReceivePack(ctx, req)
}

// closePack ends a packfile the push will not read, so its writer stops.
func closePack(req *packp.ReferenceUpdateRequest) {
	if req.Packfile != nil {
		req.Packfile.Close()
	}
}

// atomicLoader opens a local repository like go-git's server loader, with
// branch updates written atomically (a temporary file renamed over the ref):
// go-git's filesystem storage truncates and rewrites a ref file in place, so
// a machine fetching at that moment read an empty ref ("ref file is empty").
type atomicLoader struct{}

func (atomicLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	s, err := server.DefaultLoader.Load(ep)
	if err != nil {
		return nil, err
	}
	if fsS, ok := s.(*filesystem.Storage); ok {
		// Objects larger than a note are read lazily, streamed into the
		// pack they are sent in: read whole to choose deltas, a 300 MB blob
		// a remote holds cost the serving side 1.8 GB.
		fsS = filesystem.NewStorageWithOptions(fsS.Filesystem(), cache.NewObjectLRUDefault(), filesystem.Options{LargeObjectThreshold: blobLimit})
		return &atomicRefs{Storage: fsS, root: fsS.Filesystem().Root()}, nil
	}
	return s, nil
}

type atomicRefs struct {
	*filesystem.Storage
	root string
}

func (s *atomicRefs) SetReference(ref *plumbing.Reference) error {
	name := ref.Name().String()
	if ref.Type() != plumbing.HashReference || !strings.HasPrefix(name, "refs/") {
		return s.Storage.SetReference(ref)
	}
	p := filepath.Join(s.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	// The temporary file lives in the repository's top folder, not beside the
	// ref: go-git lists every file under refs/ as a ref, a half-written
	// temporary one included.
	f, err := os.CreateTemp(s.root, "mf-lsp-ref-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(ref.Hash().String() + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}

func (s *atomicRefs) CheckAndSetReference(ref, old *plumbing.Reference) error {
	if old != nil {
		cur, err := s.Storage.Reference(ref.Name())
		if err != nil || cur.Hash() != old.Hash() {
			return fmt.Errorf("%s: %w", ref.Name(), ErrRejected)
		}
	}
	return s.SetReference(ref)
}
