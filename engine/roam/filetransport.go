package roam

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
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
		client.InstallProtocol("file", lockedFile{server.NewClient(server.DefaultLoader)})
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
	sto, err := server.DefaultLoader.Load(s.ep)
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
