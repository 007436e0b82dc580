// Settings → initializationOptions (docs/protocol.md): only what the user set is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SettingsReader, initializationOptions, resolvePathSetting, restartsServer } from '../config';

function reader(values: Record<string, unknown>): SettingsReader {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

const ctx = { folder: '/work/project', home: '/home/ann' };

test('no settings send no options, so the server applies its defaults', () => {
  assert.deepEqual(initializationOptions(reader({}), ctx), {});
  assert.deepEqual(initializationOptions(reader({ task: '  ', agents: [], budget: null, earlier: 0, dataDir: '' }), ctx), {});
});

test('set settings are sent trimmed, counts as whole positive numbers', () => {
  const opts = initializationOptions(reader({
    task: ' T-7 ', agents: [' larry', '', 'moe '], participant: 'moe', machine: 'm1',
    budget: 1500.7, earlier: -2, summarizer: 'llm -m x', autoRevision: false,
  }), ctx);
  assert.deepEqual(opts, {
    task: 'T-7', agents: ['larry', 'moe'], participant: 'moe', machine: 'm1', budget: 1500, summarizer: 'llm -m x', autoRevision: false,
  });
});

test('the data directory setting expands ~ and ${workspaceFolder}, relative to the folder', () => {
  assert.equal(initializationOptions(reader({ dataDir: '~/mf' }), ctx).dataDir, '/home/ann/mf');
  assert.equal(resolvePathSetting('~', ctx), '/home/ann');
  assert.equal(resolvePathSetting('${workspaceFolder}/bin/mf-lsp', ctx), '/work/project/bin/mf-lsp');
  assert.equal(resolvePathSetting('data', ctx), '/work/project/data');
  assert.equal(resolvePathSetting('data', { home: '/home/ann' }), 'data');
});

test('a settings change restarts the server unless it is only the trace or syncOnSave', () => {
  const changed = (...sections: string[]) => (s: string) => sections.some((x) => x === s || x.startsWith(s + '.'));
  assert.equal(restartsServer(changed('magicfrog.budget')), true);
  assert.equal(restartsServer(changed('magicfrog.trace.server')), false);
  assert.equal(restartsServer(changed('magicfrog.syncOnSave')), false);
  assert.equal(restartsServer(changed('editor.fontSize')), false);
});
