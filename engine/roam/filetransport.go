package roam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/gofrs/flock"
)

// ErrRejected: the remote branch moved since it was fetched (another machine
// pushed first). The sync fetches, merges and pushes again.
var ErrRejected = errors.New("the remote branch moved since it was fetched (fetch first)")

var fileTransportOnce sync.Once

// installFileTransport serves file remotes in-process. go-git's own file
// transport runs the git-upload-pack and git-receive-pack binaries; its
// in-process server does not, but it updates a branch without checking the
// old value, so two machines pushing to one shared folder at once could each
// "succeed" and one commit would be lost. lockedFile adds that check, under a
// lock file in the remote repository.
func installFileTransport() {
	fileTransportOnce.Do(func() {
		client.InstallProtocol("file", lockedFile{server.NewClient(atomicLoader{})})
	})
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
