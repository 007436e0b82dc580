// The words the extension shows: status bar texts, the effective view as Markdown,
// the memory tree's nodes, quick-pick items. Pure (no VS Code): the views turn these
// into status bar items and tree items, and the unit tests check them.
import { ErrorData } from './contract';
import { DIMENSION_ORDER, Described, EffectiveView, Entry, PROMOTION_TARGETS, RenderDetails, SearchHit, SearchResult, SyncReport } from './protocol';

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A failed command's error data (docs/protocol.md, "Errors"): the code and details
 * the extension decides on; the message is for people only. undefined when the
 * error carries none.
 */
export function errorData(e: unknown): ErrorData | undefined {
  const data = typeof e === 'object' && e !== null ? (e as { data?: unknown }).data : undefined;
  if (typeof data === 'object' && data !== null && typeof (data as { code?: unknown }).code === 'string') {
    return data as ErrorData;
  }
  return undefined;
}

/** "task T-7", "user": a note's dimension and the agent or task it is filed under. */
export function where(entry: Entry): string {
  return entry.scope ? `${entry.dimension} ${entry.scope}` : entry.dimension;
}

/** A status bar item's face: its text (with a codicon), Markdown tooltip, and whether it warns. */
export interface StatusFace {
  text: string;
  tooltip: string;
  warn: boolean;
}

/**
 * The note status item for magicfrog.describe's answer; undefined (hidden) for a file
 * that is not memory. A note the session scope cannot see at all (another agent's,
 * another task's, another machine's device note) is "not in scope", as hover and the
 * code lens say; only a note in scope that another one wins over is "shadowed".
 */
export function noteStatus(d: Described | null | undefined): StatusFace | undefined {
  if (!d || !d.dimension) {
    return undefined;
  }
  const scope = d.scope ? ` ${d.scope}` : '';
  const rev = typeof d.revision === 'number' ? ` · r${d.revision}` : '';
  const outOfScope = d.inScope === false;
  const shadowed = !outOfScope && d.effective === false;
  const otherMachine = outOfScope && d.dimension === 'device';
  const mark = otherMachine ? ' (not this machine)' : outOfScope ? ' (not in scope)' : shadowed ? ' (shadowed)' : '';
  const icon = outOfScope ? 'circle-slash' : shadowed ? 'eye-closed' : 'database';
  let tooltip = `**MagicFrog memory** — ${d.dimension}${scope}, key \`${d.key}\``;
  if (d.layer) {
    tooltip += `, layer \`${d.layer}\``;
  }
  tooltip += `\n\nrevision ${d.revision ?? 0}${d.updated ? `, updated ${d.updated}` : ''}`;
  if (otherMachine) {
    tooltip += `\n\nNot in scope: a device note of machine \`${d.machine ?? '?'}\`, not this one: in no <memory> block here.`;
  } else if (outOfScope) {
    tooltip += `\n\nNot in scope: the session's task and agent cannot see ${where(d)}'s notes: in no <memory> block.`;
  } else if (shadowed) {
    const by = d.shadowedBy ? where(d.shadowedBy) : 'another note';
    tooltip += `\n\nShadowed by ${by}: not in the <memory> block.`;
  } else {
    tooltip += '\n\nEffective: in the <memory> block.';
  }
  return { text: `$(${icon}) ${d.dimension}${scope}${rev}${mark}`, tooltip, warn: outOfScope || shadowed };
}

/** The sync item: "synced 5 min ago · 2 to push · 1 conflict" (`now` in ms since the epoch). */
export function syncStatus(r: SyncReport, now: number): StatusFace {
  const n = (xs: unknown[] | null | undefined): number => (xs ? xs.length : 0);
  const last = r.LastSync && !r.LastSync.startsWith('0001') ? Date.parse(r.LastSync) : NaN;
  const ago = isNaN(last) ? 'never synced' : `synced ${Math.max(0, Math.round((now - last) / 60_000))} min ago`;
  const parts = [ago];
  if (n(r.Pushed)) {
    parts.push(`${n(r.Pushed)} to push`);
  }
  if (n(r.Conflicts)) {
    parts.push(plural(n(r.Conflicts), 'conflict'));
  }
  const tooltip = `MagicFrog sync with ${r.Remote}: click to sync now` +
    (n(r.Conflicts) ? `\nConflicts: ${(r.Conflicts ?? []).map((c) => c.Path).join(', ')}` : '');
  return { text: `$(sync) ${parts.join(' · ')}`, tooltip, warn: n(r.Conflicts) > 0 };
}

/** "Seen as task `T-7` · agent `larry` · machine `3f9c…`.", or that nothing is bound. */
export function scopeLine(view: EffectiveView): string {
  const sc = view.scope ?? {};
  const agents = (sc.agents ?? []).filter((a) => a);
  const parts = [sc.task ? `task \`${sc.task}\`` : 'no task', agents.length === 0 ? 'no agent' : `agent${agents.length > 1 ? 's' : ''} \`${agents.join('`, `')}\``];
  if (sc.machine) {
    parts.push(`machine \`${sc.machine}\``);
  }
  const unbound = !sc.task && agents.length === 0 ? ' (unbound: notes under a task or agent ID are not in this view)' : '';
  return `Seen as ${parts.join(' · ')}${unbound}.`;
}

/** One note of the effective view, as the tree and the Markdown view list it. */
export interface Row {
  entry: Entry;
  effective: boolean;
  shadowedBy?: Entry;
}

/** Groups the view into one row list per dimension, shadowed notes included, by key. */
export function groupByDimension(view: EffectiveView): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  const seen = new Set<string>();
  const add = (dimension: string, row: Row): void => {
    const id = row.entry.uri ?? row.entry.path ?? `${row.entry.dimension}/${row.entry.scope ?? ''}/${row.entry.key}`;
    if (seen.has(id)) {
      return;
    }
    seen.add(id);
    if (!groups.has(dimension)) {
      groups.set(dimension, []);
    }
    groups.get(dimension)!.push(row);
  };
  for (const k of view.keys ?? []) {
    if (k.winner) {
      add(k.winner.dimension, { entry: k.winner, effective: true });
    }
    for (const s of k.shadowed ?? []) {
      add(s.dimension, { entry: s, effective: false, shadowedBy: k.winner });
    }
  }
  for (const d of view.device ?? []) {
    add('device', { entry: d, effective: true });
  }
  for (const s of view.skills ?? []) {
    add('skills', { entry: s, effective: true });
  }
  for (const rows of groups.values()) {
    rows.sort((a, b) => a.entry.key.localeCompare(b.entry.key) || Number(b.effective) - Number(a.effective));
  }
  return groups;
}

/** The dimensions in chain order, then skills, then any other the server sent. */
export function dimensionOrder(present: Iterable<string>): string[] {
  const known = [...DIMENSION_ORDER, 'skills'];
  return [...known, ...[...present].filter((d) => !known.includes(d))];
}

export function effectiveViewMarkdown(view: EffectiveView): string {
  const lines = ['# MagicFrog effective view', '', scopeLine(view), ''];
  const groups = groupByDimension(view);
  if (groups.size === 0) {
    lines.push('No memory in scope.');
  }
  for (const dimension of dimensionOrder(groups.keys())) {
    const rows = groups.get(dimension);
    if (!rows) {
      continue;
    }
    lines.push(`## ${dimension}`, '', '| key | scope | revision | tokens | state | file |', '| --- | --- | --- | --- | --- | --- |');
    for (const r of rows) {
      const state = r.effective ? 'effective' : `shadowed${r.shadowedBy ? ` by ${where(r.shadowedBy)}` : ''}`;
      const file = r.entry.path ?? r.entry.uri ?? '';
      lines.push(`| ${r.entry.key} | ${r.entry.scope ?? ''} | ${r.entry.revision ?? ''} | ${r.entry.tokens ?? ''} | ${state} | ${file} |`);
    }
    lines.push('');
  }
  const boot = view.boot ?? [];
  if (boot.length > 0) {
    lines.push('## journal boot set', '', 'What the agent reads from its journals, in this order.', '');
    boot.forEach((e, i) => lines.push(`${i + 1}. ${where(e)}: ${e.key}`));
    lines.push('');
  }
  return lines.join('\n');
}

/** A node of the memory tree. */
export type TreeNode =
  | { kind: 'dimension'; dimension: string; rows: Row[] }
  | { kind: 'folder'; dimension: string; prefix: string; name: string; rows: Row[] }
  | { kind: 'entry'; row: Row; name: string }
  | { kind: 'message'; text: string };

/** Folders with more notes than this start collapsed (a journal has hundreds). */
export const EXPAND_LIMIT = 12;

/** The tree's top level: one node per dimension with notes, or a message. */
export function treeRoots(view: EffectiveView): TreeNode[] {
  const groups = groupByDimension(view);
  const roots: TreeNode[] = [];
  for (const dimension of dimensionOrder(groups.keys())) {
    const rows = groups.get(dimension);
    if (rows && rows.length > 0) {
      roots.push({ kind: 'dimension', dimension, rows });
    }
  }
  return roots.length > 0 ? roots : [{ kind: 'message', text: 'No memory in scope.' }];
}

/** The children of a dimension or folder: sub-folders first (by name), then notes. */
export function nest(dimension: string, prefix: string, rows: Row[]): TreeNode[] {
  const folders = new Map<string, Row[]>();
  const leaves: TreeNode[] = [];
  for (const row of rows) {
    const rest = row.entry.key.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      leaves.push({ kind: 'entry', row, name: rest });
    } else {
      const name = rest.slice(0, slash);
      folders.set(name, [...(folders.get(name) ?? []), row]);
    }
  }
  const out: TreeNode[] = [...folders.keys()].sort().map((name) => ({
    kind: 'folder' as const,
    dimension,
    prefix: `${prefix}${name}/`,
    name,
    rows: folders.get(name)!,
  }));
  return out.concat(leaves);
}

/** A tree item's look, without VS Code's types: the tree provider builds the TreeItem. */
export interface TreeItemShape {
  label: string;
  collapsed?: 'expanded' | 'collapsed';
  description?: string;
  /** Markdown for notes, plain text for folders. */
  tooltip?: string;
  icon: 'info' | 'layers' | 'tools' | 'folder' | 'effective' | 'shadowed';
  contextValue?: string;
  id?: string;
}

export function treeItemShape(node: TreeNode): TreeItemShape {
  switch (node.kind) {
    case 'message':
      return { label: node.text, icon: 'info' };
    case 'dimension': {
      const effective = node.rows.filter((r) => r.effective).length;
      const shadowed = node.rows.length - effective;
      return {
        label: node.dimension,
        collapsed: 'expanded',
        description: shadowed > 0 ? `${effective} effective, ${shadowed} shadowed` : `${effective} effective`,
        icon: node.dimension === 'skills' ? 'tools' : 'layers',
        contextValue: 'magicfrog.dimension',
        id: `dimension:${node.dimension}`,
      };
    }
    case 'folder': {
      const shadowed = node.rows.filter((r) => !r.effective).length;
      return {
        label: node.name,
        collapsed: node.rows.length > EXPAND_LIMIT ? 'collapsed' : 'expanded',
        description: `${plural(node.rows.length, 'note')}${shadowed ? `, ${shadowed} shadowed` : ''}`,
        tooltip: `${node.dimension}: ${node.prefix}`,
        icon: 'folder',
        id: `folder:${node.dimension}:${node.prefix}`,
      };
    }
    case 'entry': {
      const { entry, effective, shadowedBy } = node.row;
      const parts: string[] = [];
      if (entry.scope) {
        parts.push(entry.scope);
      }
      if (typeof entry.revision === 'number') {
        parts.push(`r${entry.revision}`);
      }
      if (typeof entry.tokens === 'number') {
        parts.push(`${entry.tokens} tok`);
      }
      // The icon marks effective notes; the words say who shadows the others.
      if (!effective) {
        parts.push(shadowedBy ? `shadowed by ${where(shadowedBy)}` : 'shadowed');
      }
      let tip = `**${entry.key}** — ${where(entry)}`;
      if (entry.layer) {
        tip += `, layer \`${entry.layer}\``;
      }
      tip += '\n\n' + (effective ? 'Effective: rendered into the `<memory>` block.' : `Shadowed${shadowedBy ? ` by ${where(shadowedBy)}` : ''}: not rendered.`);
      if (typeof entry.revision === 'number') {
        tip += `\n\nrevision ${entry.revision}${entry.updated ? `, updated ${entry.updated}` : ''}`;
      }
      if (typeof entry.tokens === 'number') {
        tip += `, ${entry.tokens} tokens`;
      }
      return {
        label: node.name,
        description: parts.join(' · '),
        tooltip: tip,
        icon: effective ? 'effective' : 'shadowed',
        contextValue: effective ? 'magicfrog.effective' : 'magicfrog.shadowed',
      };
    }
  }
}

/** The render preview's marks: each group's tokens, and why a note was left out (lines count in the block). */
export function budgetMarks(d: RenderDetails): { groups: { line: number; text: string }[]; cuts: { line: number; text: string }[] } {
  return {
    groups: (d.groups ?? []).map((g) => ({ line: g.line, text: `${g.tokens} tokens, ${plural(g.notes, 'note')}${g.omitted ? `, ✂ ${g.omitted} left out` : ''}` })),
    cuts: (d.omitted ?? []).map((o) => ({
      line: o.line,
      text: o.reason === 'unregistered-scope' ? "unregistered folder: in no one's view" : `✂ left out by the budget: ${o.tokens} tokens`,
    })),
  };
}

/** A quick-pick item with what the command sends: a dimension and, for one agent, its ID. */
export interface TargetItem {
  label: string;
  description?: string;
  detail?: string;
  to: string;
  scope?: string;
}

/** Promote Note's choices: each agent in scope, every agent, then user, account, skills. */
export function promotionItems(agents: string[]): TargetItem[] {
  const items: TargetItem[] = [];
  for (const t of PROMOTION_TARGETS) {
    if (t.to === 'agent') {
      for (const id of agents) {
        items.push({ label: `agent ${id}`, description: `only agent ${id}`, detail: t.detail, to: 'agent', scope: id });
      }
      items.push({ label: 'agent', description: 'shared by every agent', detail: t.detail, to: 'agent' });
    } else {
      items.push({ label: t.to, detail: t.detail, to: t.to });
    }
  }
  return items;
}

/** Open Today's Daily Note's journals: the task's, each agent's in scope, the shared ones. */
export function journalItems(agents: string[]): TargetItem[] {
  return [
    { label: 'task', description: "the project's journal", to: 'task' },
    ...agents.map((id) => ({ label: `agent ${id}`, description: `agent ${id}'s journal`, to: 'agent', scope: id })),
    { label: 'agent', description: 'the shared agent journal', to: 'agent' },
    { label: 'user', to: 'user' },
    { label: 'account', to: 'account' },
  ];
}

/** What magicfrog.import answered, in one line. */
export function importSummary(r: { imported?: number; unchanged?: number; skipped?: unknown[] | null } | undefined, dir: string): string {
  const skipped = r?.skipped ?? [];
  const unchanged = typeof r?.unchanged === 'number' && r.unchanged > 0 ? ` (${r.unchanged} unchanged)` : '';
  return `MagicFrog: imported ${plural(r?.imported ?? 0, 'note')}${unchanged} from ${dir}` + (skipped.length ? `, skipped ${skipped.length}.` : '.');
}

/** A quick-pick item of a search hit. */
export interface SearchItem {
  label: string;
  description: string;
  detail: string;
  hit: SearchHit;
}

/**
 * The quick-pick items of magicfrog.search's answer, best first: the note's key, where
 * it is filed and the passage's lines (shadowed notes say so), and the passage as one line.
 */
export function searchItems(result: SearchResult | null | undefined): SearchItem[] {
  return (result?.hits ?? []).map((hit) => {
    const lines = hit.start_line === hit.end_line ? `line ${hit.start_line}` : `lines ${hit.start_line}-${hit.end_line}`;
    return {
      label: hit.key,
      description: `${hit.dimension} · ${lines}${hit.effective ? '' : ' (shadowed)'}`,
      detail: hit.snippet.split('\n').map((l) => l.trim()).filter((l) => l !== '').join(' ⏎ '),
      hit,
    };
  });
}
