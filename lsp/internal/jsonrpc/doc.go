// Package jsonrpc is the language server's connection to its client: JSON-RPC 2.0
// messages in the LSP base protocol's framing (a Content-Length header block, then the
// body). It knows that protocol and its $/cancelRequest, and nothing of LSP's methods.
//
// What runs where (deliberately):
//
//   - Run's read loop decodes one message at a time and calls the Handler inline.
//     Every handler runs there, one after another, so notifications are applied in the
//     order the peer sent them and every request sees all that came before it.
//     Handlers must therefore be quick and must never wait for the peer: the reply
//     they would wait for is read by the very loop they block.
//   - A handler with slow work returns Async(fn) as its result: fn runs in its own
//     goroutine and its result is sent when it finishes, while the loop goes on.
//   - $/cancelRequest is handled here, on the loop. A synchronous request has always
//     been answered before its cancel is even read, so a cancel only reaches Async
//     requests: it cancels fn's context, and a fn that gives up with ctx.Err() is
//     answered RequestCancelled.
//   - Call (a request to the peer) waits for the reply, so it is made from an Async
//     fn or another goroutine, never from a handler. Notify never waits.
//
// Bad input never ends the connection: a frame that is not JSON, not a JSON-RPC
// message, or too large is answered with an error (id null when no id could be read)
// and the loop reads on; an oversized body is skipped up to the next Content-Length
// header, never buffered. A panicking handler is answered InternalError and logged.
// Each frame is read once into a buffer of its announced size and decoded once.
//
// What goes out is queued and written by one goroutine, so the read loop never blocks
// on a peer that is busy writing instead of reading. The queue is bounded
// (Options.MaxQueueBytes): a peer that stops reading fills it, the send that goes over
// fails with ErrPeerNotReading, and the connection is closed. Dropping the message
// instead would break the protocol silently (a request never answered, diagnostics
// never cleared) for a peer that is, after megabytes of unread output, hung anyway;
// closing ends the session, so the editor can restart the server, and frees the memory.
package jsonrpc
