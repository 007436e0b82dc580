package jsonrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"sync"
	"time"
)

// ErrClosed is returned by sends and calls on a closed connection.
var ErrClosed = errors.New("jsonrpc: connection closed")

// ErrPeerNotReading is returned (wrapped, with the numbers) by the send that finds the
// outgoing queue full, and by every send after it; the connection is closed then.
var ErrPeerNotReading = errors.New("jsonrpc: the peer is not reading")

// outbox queues encoded messages and writes them, framed, from its own goroutine, so
// that a sender never waits for the peer: with net.Pipe a write waits for the reader
// at once, with OS pipes once a message outgrows their buffer, and a peer busy writing
// to us instead of reading would wait for us in turn.
type outbox struct {
	w     *bufio.Writer
	limit int64
	log   *log.Logger

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []outFrame
	size    int64 // bytes queued or being written
	err     error // why sends fail now: the first write error or ErrPeerNotReading
	closing bool
	done    chan struct{} // closed when the writer goroutine ends
}

func newOutbox(w io.Writer, limit int64, logger *log.Logger) *outbox {
	o := &outbox{w: bufio.NewWriter(w), limit: limit, log: logger, done: make(chan struct{})}
	o.wake = sync.NewCond(&o.mu)
	go o.writeLoop()
	return o
}

// outFrame is one queued write: a message body, framed when written, or raw bytes
// written as they are. A body in a pooled buffer (enc) is released once written
// or dropped.
type outFrame struct {
	b   []byte
	raw bool
	enc *encoded
}

// put queues one encoded message. One message is taken whatever its size when
// nothing is waiting, so a large reply always goes out to a peer that keeps up;
// beyond that the queue holds at most limit bytes.
func (o *outbox) put(e *encoded) error {
	err := o.putFrame(outFrame{b: e.Bytes(), enc: e})
	if err != nil {
		e.release() // not queued
	}
	return err
}

// putRaw queues bytes to be written as they are, between whole messages.
func (o *outbox) putRaw(b []byte) error { return o.putFrame(outFrame{b: b, raw: true}) }

func (o *outbox) putFrame(f outFrame) error {
	body := f.b
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if o.closing {
		return ErrClosed
	}
	n := int64(len(body))
	if o.size > 0 && o.size+n > o.limit {
		o.fail(fmt.Errorf("%w: %d bytes of outgoing messages are waiting and %d more would exceed the limit of %d bytes; closing the connection", ErrPeerNotReading, o.size, n, o.limit))
		return o.err
	}
	o.queue = append(o.queue, f)
	o.size += n
	o.wake.Signal()
	return nil
}

// fail makes every later send fail with err and drops what is queued. o.mu is held.
func (o *outbox) fail(err error) {
	o.err = err
	o.log.Print(err)
	for _, f := range o.queue {
		o.size -= int64(len(f.b))
		f.enc.release()
	}
	o.queue = nil
	o.wake.Signal()
}

// close stops taking messages and waits up to grace for the queued ones to be
// written (the reply to shutdown, a last log message). It does not wait when writing
// has already failed: the writer may be stuck in a write the peer never reads.
func (o *outbox) close(grace time.Duration) {
	o.mu.Lock()
	o.closing = true
	failed := o.err != nil
	o.wake.Signal()
	o.mu.Unlock()
	if failed {
		return
	}
	select {
	case <-o.done:
	case <-time.After(grace):
	}
}

// queued reports the bytes queued or being written.
func (o *outbox) queued() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.size
}

func (o *outbox) writeLoop() {
	defer close(o.done)
	for {
		o.mu.Lock()
		for len(o.queue) == 0 && !o.closing && o.err == nil {
			o.wake.Wait()
		}
		batch := o.queue
		o.queue = nil
		stop := o.err != nil || o.closing && len(batch) == 0
		o.mu.Unlock()
		if stop {
			return
		}
		err := o.write(batch)
		o.mu.Lock()
		for i, f := range batch {
			o.size -= int64(len(f.b))
			f.enc.release()
			batch[i] = outFrame{}
		}
		if err != nil && o.err == nil {
			o.fail(fmt.Errorf("jsonrpc: writing to the peer: %w", err))
		}
		o.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (o *outbox) write(batch []outFrame) error {
	for _, f := range batch {
		body := f.b
		if f.raw {
			if _, err := o.w.Write(body); err != nil {
				return err
			}
			continue
		}
		if _, err := o.w.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"); err != nil {
			return err
		}
		if _, err := o.w.Write(body); err != nil {
			return err
		}
	}
	return o.w.Flush()
}
