// Finding mf-lsp: the setting, else PATH, else where `go install` puts it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { findServer } from '../server';

function tree(): { root: string; bin: (dir: string, mode?: number) => string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-vscode-unit-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  return {
    root,
    bin(dir: string, mode = 0o755): string {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      const p = path.join(root, dir, 'mf-lsp');
      fs.writeFileSync(p, '#!/bin/sh\n', { mode });
      return p;
    },
  };
}

test('the setting wins, and a setting that is not an executable says so', () => {
  const t = tree();
  const p = t.bin('custom');
  t.bin('onpath');
  const where = { folder: t.root, home: t.root, env: { PATH: path.join(t.root, 'onpath') }, platform: 'linux' };
  assert.deepEqual(findServer('custom/mf-lsp', where), { ok: true, command: p, source: 'setting' });
  const bad = findServer('nowhere/mf-lsp', where);
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.message : '', /magicfrog\.serverPath points at ".*nowhere\/mf-lsp", which is not an executable file/);
});

test('without the setting: PATH, then GOBIN, GOPATH/bin and ~/go/bin', () => {
  const t = tree();
  t.bin('plain', 0o644); // not executable: skipped
  const inGo = t.bin('go/bin');
  const where = { home: t.root, env: { PATH: path.join(t.root, 'plain') }, platform: 'linux' };
  assert.deepEqual(findServer('', where), { ok: true, command: inGo, source: 'GOPATH' });
  const onPath = t.bin('onpath');
  where.env.PATH = [path.join(t.root, 'plain'), path.join(t.root, 'onpath')].join(path.delimiter);
  assert.deepEqual(findServer(' ', where), { ok: true, command: onPath, source: 'PATH' });
});

test('nothing found: the message names the install command', () => {
  const t = tree();
  const r = findServer('', { home: t.root, env: {}, platform: 'linux' });
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.message : '', /go install github\.com\/magicfrog\/mf-lsp\/cmd\/mf-lsp@latest/);
});
