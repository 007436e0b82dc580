// What the status bar, the memory tree and the effective view say.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EXPAND_LIMIT, budgetMarks, effectiveViewMarkdown, errorData, groupByDimension, importSummary, journalItems, nest, noteStatus,
  promotionItems, searchItems, syncStatus, treeItemShape, treeRoots,
} from '../labels';
import { Described, EffectiveView, Entry, SearchHit } from '../protocol';

const note = (over: Partial<Described>): Described => ({ dimension: 'task', scope: 'T-7', key: 'decisions', revision: 3, inScope: true, effective: true, ...over });

test('status: an effective note shows its dimension, scope and revision', () => {
  const s = noteStatus(note({}))!;
  assert.equal(s.text, '$(database) task T-7 · r3');
  assert.equal(s.warn, false);
  assert.match(s.tooltip, /Effective: in the <memory> block\./);
});

test('status: a note another one wins over is shadowed, and says by whom', () => {
  const s = noteStatus(note({ dimension: 'user', scope: undefined, effective: false, shadowedBy: { dimension: 'task', scope: 'T-7', key: 'decisions' } }))!;
  assert.equal(s.text, '$(eye-closed) user · r3 (shadowed)');
  assert.equal(s.warn, true);
  assert.match(s.tooltip, /Shadowed by task T-7: not in the <memory> block\./);
});

test('status: an out-of-scope note is "not in scope", never "shadowed"', () => {
  // Another agent's note: the session cannot see it at all (as hover and the code lens say).
  const s = noteStatus(note({ dimension: 'agent', scope: 'moe', inScope: false, effective: false }))!;
  assert.equal(s.text, '$(circle-slash) agent moe · r3 (not in scope)');
  assert.doesNotMatch(s.text + s.tooltip, /shadow/i);
  assert.match(s.tooltip, /Not in scope: .*agent moe.*in no <memory> block/);
  assert.equal(s.warn, true);
  // Another task's note.
  assert.match(noteStatus(note({ scope: 'T-9', inScope: false, effective: false }))!.text, /task T-9 · r3 \(not in scope\)$/);
  // Another machine's device note.
  const d = noteStatus(note({ dimension: 'device', scope: undefined, machine: 'a71b', inScope: false, effective: false }))!;
  assert.equal(d.text, '$(circle-slash) device · r3 (not this machine)');
  assert.match(d.tooltip, /machine `a71b`, not this one/);
});

test('status: a file that is not memory hides the item', () => {
  assert.equal(noteStatus(null), undefined);
  assert.equal(noteStatus({ key: 'x' } as Described), undefined);
});

test('sync status: minutes since the last sync, what waits to be pushed, conflicts', () => {
  const now = Date.parse('2026-11-30T12:10:00Z');
  const s = syncStatus({ Remote: 'git@x:m.git', LastSync: '2026-11-30T12:05:00Z', Pushed: [{ Path: 'a' }, { Path: 'b' }], Pulled: null, Conflicts: [{ Path: 'c.md', Reason: 'both' }], Held: null }, now);
  assert.equal(s.text, '$(sync) synced 5 min ago · 2 to push · 1 conflict');
  assert.equal(s.warn, true);
  assert.match(s.tooltip, /Conflicts: c\.md/);
  const never = syncStatus({ Remote: 'r', LastSync: '0001-01-01T00:00:00Z', Pushed: null, Pulled: null, Conflicts: null, Held: null }, now);
  assert.deepEqual([never.text, never.warn], ['$(sync) never synced', false]);
});

const e = (dimension: string, key: string, over: Partial<Entry> = {}): Entry => ({ dimension, key, path: `/m/${dimension}/${over.scope ?? ''}/${key}.md`, ...over });

const view: EffectiveView = {
  scope: { task: 'T-7', agents: ['larry'], machine: 'm1' },
  keys: [
    { key: 'style', winner: e('task', 'style', { scope: 'T-7', revision: 2, tokens: 40 }), shadowed: [e('user', 'style', { revision: 5 })] },
    { key: 'journal/2026-11-30', winner: e('agent', 'journal/2026-11-30', { scope: 'larry' }) },
  ],
  device: [e('device', 'ssh')],
  skills: null,
  boot: [e('agent', 'journal/2026-11-30', { scope: 'larry' })],
};

test('tree: dimensions in chain order, shadowed notes under their own dimension', () => {
  const roots = treeRoots(view);
  assert.deepEqual(roots.map((r) => (r.kind === 'dimension' ? r.dimension : r.kind)), ['task', 'agent', 'user', 'device']);
  assert.deepEqual(treeItemShape(roots[0]).description, '1 effective');
  assert.deepEqual(treeItemShape(roots[2]).description, '0 effective, 1 shadowed');
  assert.deepEqual(treeRoots({}), [{ kind: 'message', text: 'No memory in scope.' }]);
});

test('tree: a note says its scope, revision, tokens and who shadows it', () => {
  const task = groupByDimension(view).get('task')!;
  const [leaf] = nest('task', '', task);
  const shape = treeItemShape(leaf);
  assert.equal(shape.description, 'T-7 · r2 · 40 tok');
  assert.equal(shape.icon, 'effective');
  const [user] = nest('user', '', groupByDimension(view).get('user')!);
  assert.equal(treeItemShape(user).description, 'r5 · shadowed by task T-7');
  assert.equal(treeItemShape(user).contextValue, 'magicfrog.shadowed');
  assert.match(treeItemShape(user).tooltip!, /Shadowed by task T-7: not rendered\./);
});

test('tree: keys with slashes nest as folders, folders first; a big folder starts collapsed', () => {
  const rows = ['b', 'journal/x', 'a', 'journal/y'].map((k) => ({ entry: e('agent', k), effective: true }));
  const kids = nest('agent', '', rows);
  assert.deepEqual(kids.map((k) => (k.kind === 'folder' ? `${k.name}/` : k.kind === 'entry' ? k.name : '')), ['journal/', 'b', 'a']);
  const folder = kids[0];
  assert.equal(treeItemShape(folder).description, '2 notes');
  assert.equal(treeItemShape(folder).collapsed, 'expanded');
  assert.deepEqual(nest('agent', 'journal/', folder.kind === 'folder' ? folder.rows : []).map((k) => (k.kind === 'entry' ? k.name : '')), ['x', 'y']);
  const many = Array.from({ length: EXPAND_LIMIT + 1 }, (_, i) => ({ entry: e('task', `days/${i}`), effective: true }));
  assert.equal(treeItemShape(nest('task', '', many)[0]).collapsed, 'collapsed');
});

test('effective view as Markdown: the scope line, a table per dimension, the boot set', () => {
  const md = effectiveViewMarkdown(view);
  assert.match(md, /^Seen as task `T-7` · agent `larry` · machine `m1`\.$/m);
  assert.match(md, /^\| style \| T-7 \| 2 \| 40 \| effective \|/m);
  assert.match(md, /^\| style \|  \| 5 \|  \| shadowed by task T-7 \|/m);
  assert.match(md, /^1\. agent larry: journal\/2026-11-30$/m);
  assert.ok(md.indexOf('## task') < md.indexOf('## agent') && md.indexOf('## user') < md.indexOf('## device'));
  assert.match(effectiveViewMarkdown({}), /no task · no agent \(unbound: .*\)\.\n\nNo memory in scope\./);
});

test('promotion and journal choices list each agent in scope, then the shared ones', () => {
  assert.deepEqual(promotionItems(['larry']).map((i) => [i.label, i.to, i.scope]), [
    ['agent larry', 'agent', 'larry'], ['agent', 'agent', undefined], ['user', 'user', undefined], ['account', 'account', undefined], ['skills', 'skills', undefined],
  ]);
  assert.deepEqual(journalItems(['larry', 'moe']).map((i) => i.label), ['task', 'agent larry', 'agent moe', 'agent', 'user', 'account']);
});

test('render preview marks: tokens per group, why a note was left out', () => {
  const m = budgetMarks({ text: '', generation: 'g', tokens: 9, budget: 5, groups: [{ name: 'task', line: 1, tokens: 9, notes: 1, omitted: 2 }],
    omitted: [{ ref: 'a', tokens: 4, reason: 'budget', line: 3 }, { ref: 'b', tokens: 1, reason: 'unregistered-scope', line: 4 }] });
  assert.deepEqual(m.groups, [{ line: 1, text: '9 tokens, 1 note, ✂ 2 left out' }]);
  assert.deepEqual(m.cuts.map((c) => c.text), ['✂ left out by the budget: 4 tokens', "unregistered folder: in no one's view"]);
});

test('import summary', () => {
  assert.equal(importSummary({ imported: 1, unchanged: 2, skipped: ['x'] }, '/tmp/e'), 'MagicFrog: imported 1 note (2 unchanged) from /tmp/e, skipped 1.');
  assert.equal(importSummary(undefined, '/tmp/e'), 'MagicFrog: imported 0 notes from /tmp/e.');
});

test('a command error is decided on its data, never its message', () => {
  // The shape vscode-languageclient rejects with: ResponseError {code, message, data}.
  const stale = Object.assign(new Error('refused: the destination is at revision 4: …'), {
    code: -32803,
    data: { code: 'stale', revision: 4, hash: 'ab', end: 'destination' },
  });
  assert.deepEqual(errorData(stale), { code: 'stale', revision: 4, hash: 'ab', end: 'destination' });
  // The same English without data is no stale destination.
  assert.equal(errorData(new Error('refused: the destination is at revision 4')), undefined);
  assert.equal(errorData({ data: { revision: 4 } }), undefined);
  assert.equal(errorData(undefined), undefined);
});

const hit = (over: Partial<SearchHit>): SearchHit => ({
  dimension: 'agent/larry', key: 'notes/ledger.md', ref: 'agent/larry/notes/ledger.md', path: '/m/agent/larry/notes/ledger.md',
  location: { uri: 'file:///m/agent/larry/notes/ledger.md', range: { start: { line: 7, character: 0 }, end: { line: 8, character: 12 } } },
  effective: true, score: 3.2, snippet: 'Reconcile the ledger.\n\n  Ask finance.', start_line: 4, end_line: 6, ...over,
});

test('search: a hit is its key, where it is filed with its lines, and the passage on one line', () => {
  const [a, b] = searchItems({ hits: [hit({}), hit({ key: 'notes/old.md', effective: false, start_line: 2, end_line: 2, snippet: 'Old.' })], total: 2 });
  assert.equal(a.label, 'notes/ledger.md');
  assert.equal(a.description, 'agent/larry · lines 4-6');
  assert.equal(a.detail, 'Reconcile the ledger. ⏎ Ask finance.');
  assert.equal(a.hit.location.range.start.line, 7);
  assert.equal(b.description, 'agent/larry · line 2 (shadowed)');
});

test('search: no hits (null from the server too) is no items', () => {
  assert.deepEqual(searchItems({ hits: null, total: 0 }), []);
  assert.deepEqual(searchItems(undefined), []);
});
