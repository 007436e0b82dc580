// End-to-end test of `mf-lsp mcp` with the official MCP TypeScript client
// (@modelcontextprotocol/sdk: Client + StdioClientTransport), against the real
// binary on a copy of testdata/demo (task T-7, agent larry):
//   1. tools/list: the six tools
//   2. memory_context and the memory://context resource: the <memory> block
//   3. memory_write with a stale revision: a tool error carrying the current
//      revision, hash and body; the file is unchanged
//   4. bad input (a 50 MB body, a key with .., another agent's notes, an
//      unknown tool): errors that say what was wrong, and the server serves on
//   5. resources/subscribe: a note written by another client is notified;
//      a note outside the scope cannot be subscribed to
//   6. eight clients (eight server processes) appending at once: every line
//      once, in each writer's order, the note parses
//   7. a language server with the note open sees an MCP write as a
//      stale-revision diagnostic, without a reload
//   8. --http 127.0.0.1:0: the streamable HTTP transport, loopback only
// Env: MF_LSP (the binary; required), DEMO (default ../../testdata/demo).
// Prints figures (append throughput) and `mcp e2e: N passed, M failed` last.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import lspNode from 'vscode-languageserver-protocol/node';
const lsp = lspNode;
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.MF_LSP;
if (!bin) {
  console.error('mcp e2e: set MF_LSP to the mf-lsp binary');
  process.exit(2);
}
const demo = resolve(process.env.DEMO ?? join(here, '..', '..', 'testdata', 'demo'));
const work = mkdtempSync(join(tmpdir(), 'mf-mcp-e2e-'));
cpSync(demo, work, { recursive: true });
const data = join(work, 'data');
const project = join(work, 'project');
const progress = join(project, '.magicfrog', 'memory', 'T-7', 'notes', 'progress.md');

let passed = 0;
let failed = 0;
async function test(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}
const text = (r) => (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');

async function connect(env = {}) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ['mcp', '--data-dir', data],
    cwd: project,
    env: { ...process.env, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mf-lsp-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const client = await connect();

await test('tools/list names the six tools, each described', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert(JSON.stringify(names) === JSON.stringify(['memory_append', 'memory_context', 'memory_read', 'memory_search', 'memory_view', 'memory_write']), `tools: ${names}`);
  for (const t of tools) assert(t.description && t.inputSchema?.type === 'object', `${t.name}: no description or schema`);
  for (const t of tools) assert(t.outputSchema?.type === 'object', `${t.name}: no output schema`);
  const write = tools.find((t) => t.name === 'memory_write');
  assert(write.inputSchema.required.includes('expected_revision'), 'memory_write must require expected_revision');
});

await test('memory_context and memory://context return the <memory> block', async () => {
  const r = await client.callTool({ name: 'memory_context', arguments: {} });
  assert(!r.isError, text(r));
  const c = r.structuredContent;
  assert(c.block.startsWith(`<memory generation="${c.generation}"`) && c.block.includes('<task id="T-7">'), c.block.slice(0, 200));
  // What the model reads is the block itself, not its JSON (issue 23).
  assert(r.content.length === 1 && text(r) === c.block, `the text content is not the block: ${text(r).slice(0, 200)}`);
  assert(c.budget === 8000, `no budget: rendered with ${c.budget}, want the default 8000`);
  const again = await client.callTool({ name: 'memory_context', arguments: { previous: 'deadbeef' } });
  assert(again.structuredContent.replaces === 'deadbeef', 'previous generation not replaced');
  const res = await client.readResource({ uri: 'memory://context' });
  assert(res.contents[0].text === c.block, 'the resource differs from the tool');
});

await test('a stale memory_write is refused with the current note; the file is unchanged', async () => {
  const before = readFileSync(progress);
  const read = await client.callTool({ name: 'memory_read', arguments: { dimension: 'task/T-7', key: 'notes/progress.md' } });
  assert(!read.isError && read.structuredContent.revision === 3, text(read));
  const r = await client.callTool({ name: 'memory_write', arguments: { dimension: 'task/T-7', key: 'notes/progress.md', body: 'overwrite\n', expected_revision: 2 } });
  assert(r.isError, 'a stale write succeeded');
  const cur = JSON.parse(r.content[1].text);
  assert(cur.error === 'stale' && cur.current_revision === 3 && cur.current_hash === read.structuredContent.hash && cur.current_body === read.structuredContent.body, r.content[1].text);
  assert(r.content[0].text.includes('expected_revision 3'), r.content[0].text);
  assert(Buffer.compare(before, readFileSync(progress)) === 0, 'the file changed');
});

await test('bad input is a clear error and the server keeps serving', async () => {
  const huge = await client.callTool({ name: 'memory_write', arguments: { dimension: 'user', key: 'huge.md', body: 'x'.repeat(50 << 20), expected_revision: 0 } });
  assert(huge.isError && text(huge).includes('not a note (too-large)'), text(huge));
  const dots = await client.callTool({ name: 'memory_write', arguments: { dimension: 'user', key: '../escape.md', body: 'x', expected_revision: 0 } });
  assert(dots.isError && text(dots).includes('".." is not allowed'), text(dots));
  const moe = await client.callTool({ name: 'memory_read', arguments: { dimension: 'agent/moe', key: 'notes/focus.md' } });
  assert(moe.isError && text(moe).includes("outside this participant's scope"), text(moe));
  const types = await client.callTool({ name: 'memory_write', arguments: { dimension: 'user', key: 'a.md', body: 'x', expected_revision: 'one' } });
  assert(types.isError && text(types).includes('expected_revision'), text(types));
  let threw = '';
  try {
    await client.callTool({ name: 'memory_delete', arguments: {} });
  } catch (e) {
    threw = String(e.message);
  }
  assert(threw.includes('memory_delete'), `unknown tool: ${threw}`);
  const { tools } = await client.listTools();
  assert(tools.length === 6, 'the server stopped serving');
});

await test('resources/subscribe: a write by another client is notified; another agent\'s note is refused', async () => {
  const uri = 'memory://agent/larry/notes/style.md';
  const got = new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('no notifications/resources/updated')), 10000);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === uri) {
        clearTimeout(timer);
        ok();
      }
    });
  });
  await client.subscribeResource({ uri });
  const other = await connect();
  const r = await other.callTool({ name: 'memory_read', arguments: { dimension: 'agent/larry', key: 'notes/style.md' } });
  const w = await other.callTool({ name: 'memory_write', arguments: { dimension: 'agent/larry', key: 'notes/style.md', body: 'Lead with the decision.\n', expected_revision: r.structuredContent.revision, expected_hash: r.structuredContent.hash } });
  assert(!w.isError, text(w));
  await got;
  await other.close();
  let refused = '';
  try {
    await client.subscribeResource({ uri: 'memory://agent/moe/notes/focus.md' });
  } catch (e) {
    refused = String(e.message);
  }
  assert(refused.includes('outside'), `subscribed to moe's note: ${refused}`);
});

await test('eight clients appending at once: every line once, in order, the note parses', async () => {
  const writers = 8;
  const each = 10;
  const clients = await Promise.all(Array.from({ length: writers }, () => connect()));
  const t0 = Date.now();
  let maxAttempts = 0;
  let totalAttempts = 0;
  let daily = '';
  await Promise.all(clients.map(async (c, w) => {
    for (let i = 0; i < each; i++) {
      const r = await c.callTool({ name: 'memory_append', arguments: { text: `- writer ${w} line ${i}` } });
      assert(!r.isError, text(r));
      maxAttempts = Math.max(maxAttempts, r.structuredContent.attempts);
      totalAttempts += r.structuredContent.attempts;
      daily = r.structuredContent.key;
    }
  }));
  const ms = Date.now() - t0;
  await Promise.all(clients.map((c) => c.close()));
  const note = readFileSync(join(project, '.magicfrog', 'memory', ...daily.split('/')), 'utf8');
  const m = /^---\nrevision: (\d+)\nupdated: [^\n]+\n---\n/.exec(note);
  assert(m, `the daily does not start with frontmatter:\n${note.slice(0, 200)}`);
  assert(Number(m[1]) === writers * each, `revision ${m[1]}, want ${writers * each}`);
  for (let w = 0; w < writers; w++) {
    let last = -1;
    for (let i = 0; i < each; i++) {
      const line = `- writer ${w} line ${i}\n`;
      const at = note.indexOf(line);
      assert(at >= 0 && note.indexOf(line, at + 1) < 0, `${line.trim()} is not there exactly once`);
      assert(at > last, `writer ${w}'s lines are out of order`);
      last = at;
    }
  }
  console.log(`     figures: ${writers * each} appends from ${writers} processes in ${ms} ms (${Math.round((writers * each * 1000) / ms)}/s), ${totalAttempts} writes tried, at most ${maxAttempts} for one append`);
});

await test('a language server with the note open sees the MCP write without a reload', async () => {
  const child = spawn(bin, [], { cwd: project, stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = lsp.createProtocolConnection(new lsp.StreamMessageReader(child.stdout), new lsp.StreamMessageWriter(child.stdin));
  const diags = [];
  let notify = () => {};
  conn.onNotification(lsp.PublishDiagnosticsNotification.type, (p) => {
    diags.push(p);
    notify();
  });
  conn.listen();
  try {
    await conn.sendRequest(lsp.InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(project).href,
      workspaceFolders: [{ uri: pathToFileURL(project).href, name: 'project' }],
      capabilities: {},
      initializationOptions: { dataDir: data },
    });
    await conn.sendNotification(lsp.InitializedNotification.type, {});
    const uri = pathToFileURL(progress).href;
    const read = await client.callTool({ name: 'memory_read', arguments: { dimension: 'task/T-7', key: 'notes/progress.md' } });
    await conn.sendNotification(lsp.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'markdown', version: 1, text: readFileSync(progress, 'utf8') },
    });
    const stale = () => diags.some((p) => p.uri === uri && p.diagnostics.some((d) => d.code === 'stale-revision'));
    // Wait for the first diagnostics of the open buffer, then write through MCP.
    await waitFor(() => diags.some((p) => p.uri === uri), 10000, 'no diagnostics for the open note');
    assert(!stale(), 'stale before the write');
    const w = await client.callTool({ name: 'memory_write', arguments: { dimension: 'task/T-7', key: 'notes/progress.md', body: 'T-7: MCP server done.\n', expected_revision: read.structuredContent.revision, expected_hash: read.structuredContent.hash } });
    assert(!w.isError, text(w));
    await waitFor(stale, 10000, 'no stale-revision diagnostic after the MCP write');
    function waitFor(cond, ms, msg) {
      return new Promise((ok, fail) => {
        if (cond()) return ok();
        const timer = setTimeout(() => fail(new Error(msg)), ms);
        notify = () => {
          if (cond()) {
            clearTimeout(timer);
            ok();
          }
        };
      });
    }
  } finally {
    try {
      await conn.sendRequest(lsp.ShutdownRequest.type);
      await conn.sendNotification(lsp.ExitNotification.type);
    } catch {}
    conn.dispose();
    child.kill();
  }
});

await test('--http serves the streamable HTTP transport on loopback, and refuses other addresses', async () => {
  const child = spawn(bin, ['mcp', '--http', '127.0.0.1:0', '--data-dir', data], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((ok, fail) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error(`no address line: ${out}`)), 10000);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          ok(m[1]);
        }
      });
    });
    const http = new Client({ name: 'mf-lsp-e2e-http', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(url)));
    const r = await http.callTool({ name: 'memory_context', arguments: {} });
    assert(!r.isError && r.structuredContent.block.includes('<task id="T-7">'), text(r));
    await http.close();
    // A request naming another host (DNS rebinding) is refused.
    // (fetch may not set Host: node:http does.)
    const status = await new Promise((ok, fail) => {
      const req = httpRequest(url, { method: 'POST', headers: { Host: 'evil.example', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        ok(res.statusCode);
      });
      req.on('error', fail);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    assert(status === 403, `Host evil.example: HTTP ${status}`);
  } finally {
    child.kill();
  }
  const refused = spawn(bin, ['mcp', '--http', '0.0.0.0:0', '--data-dir', data], { cwd: project });
  const code = await new Promise((ok) => refused.on('exit', ok));
  assert(code === 2, `--http 0.0.0.0:0 exited ${code}, want 2`);
});

await client.close();
if (failed === 0) rmSync(work, { recursive: true, force: true });
else console.log(`work dir kept: ${work}`);
console.log(`mcp e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
