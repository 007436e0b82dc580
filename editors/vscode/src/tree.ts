// The "MagicFrog Memory" explorer view: the effective view by dimension.
import * as vscode from 'vscode';
import { DIMENSION_ORDER, EffectiveView, Entry } from './protocol';

type Node =
  | { kind: 'dimension'; dimension: string; rows: Row[] }
  | { kind: 'folder'; dimension: string; prefix: string; name: string; rows: Row[] }
  | { kind: 'entry'; row: Row; name: string }
  | { kind: 'message'; text: string };

/** Folders with more notes than this start collapsed (a journal has hundreds). */
const EXPAND_LIMIT = 12;

/** The children of a dimension or folder: sub-folders first, then notes, by key. */
function nest(dimension: string, prefix: string, rows: Row[]): Node[] {
  const folders = new Map<string, Row[]>();
  const leaves: Node[] = [];
  for (const row of rows) {
    const rest = row.entry.key.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) {
      leaves.push({ kind: 'entry', row, name: rest });
    } else {
      const name = rest.slice(0, slash);
      if (!folders.has(name)) {
        folders.set(name, []);
      }
      folders.get(name)!.push(row);
    }
  }
  const out: Node[] = [...folders.keys()].sort().map((name) => ({
    kind: 'folder' as const,
    dimension,
    prefix: `${prefix}${name}/`,
    name,
    rows: folders.get(name)!,
  }));
  return out.concat(leaves);
}

interface Row {
  entry: Entry;
  effective: boolean;
  shadowedBy?: Entry;
}

export function entryUri(entry: Entry): vscode.Uri | undefined {
  if (entry.uri) {
    try {
      return vscode.Uri.parse(entry.uri, true);
    } catch {
      /* fall through to path */
    }
  }
  if (entry.path) {
    return vscode.Uri.file(entry.path);
  }
  return undefined;
}

function where(entry: Entry): string {
  return entry.scope ? `${entry.dimension} ${entry.scope}` : entry.dimension;
}

/** Groups the view into one row list per dimension, shadowed entries included. */
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

export class MemoryTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: EffectiveView | undefined;
  private error: string | undefined;

  constructor(private readonly fetch: () => Promise<EffectiveView | undefined>) {}

  refresh(): void {
    this.view = undefined;
    this.error = undefined;
    this.changed.fire(undefined);
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node?.kind === 'dimension') {
      return nest(node.dimension, '', node.rows);
    }
    if (node?.kind === 'folder') {
      return nest(node.dimension, node.prefix, node.rows);
    }
    if (node) {
      return [];
    }
    if (!this.view && !this.error) {
      try {
        this.view = await this.fetch();
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
      }
    }
    if (this.error) {
      return [{ kind: 'message', text: `Could not read the effective view: ${this.error}` }];
    }
    if (!this.view) {
      return [];
    }
    const groups = groupByDimension(this.view);
    const order = [...DIMENSION_ORDER, 'skills', ...[...groups.keys()].filter((d) => !DIMENSION_ORDER.includes(d) && d !== 'skills')];
    const roots: Node[] = [];
    for (const dimension of order) {
      const rows = groups.get(dimension);
      if (rows && rows.length > 0) {
        roots.push({ kind: 'dimension', dimension, rows });
      }
    }
    if (roots.length === 0) {
      return [{ kind: 'message', text: 'No memory in scope.' }];
    }
    return roots;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'message') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('info');
      return item;
    }
    if (node.kind === 'dimension') {
      const item = new vscode.TreeItem(node.dimension, vscode.TreeItemCollapsibleState.Expanded);
      const effective = node.rows.filter((r) => r.effective).length;
      const shadowed = node.rows.length - effective;
      item.description = shadowed > 0 ? `${effective} effective, ${shadowed} shadowed` : `${effective} effective`;
      item.iconPath = new vscode.ThemeIcon(node.dimension === 'skills' ? 'tools' : 'layers');
      item.contextValue = 'magicfrog.dimension';
      item.id = `dimension:${node.dimension}`;
      return item;
    }
    if (node.kind === 'folder') {
      const item = new vscode.TreeItem(
        node.name,
        node.rows.length > EXPAND_LIMIT ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded,
      );
      const shadowed = node.rows.filter((r) => !r.effective).length;
      item.description = `${node.rows.length} note${node.rows.length === 1 ? '' : 's'}${shadowed ? `, ${shadowed} shadowed` : ''}`;
      item.iconPath = vscode.ThemeIcon.Folder;
      item.id = `folder:${node.dimension}:${node.prefix}`;
      item.tooltip = `${node.dimension}: ${node.prefix}`;
      return item;
    }
    const { entry, effective, shadowedBy } = node.row;
    const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.None);
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
    item.description = parts.join(' · ');
    item.iconPath = effective
      ? new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'))
      : new vscode.ThemeIcon('eye-closed', new vscode.ThemeColor('disabledForeground'));
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(`**${entry.key}** — ${where(entry)}`);
    if (entry.layer) {
      tip.appendMarkdown(`, layer \`${entry.layer}\``);
    }
    tip.appendMarkdown('\n\n');
    tip.appendMarkdown(effective ? 'Effective: rendered into the `<memory>` block.' : `Shadowed${shadowedBy ? ` by ${where(shadowedBy)}` : ''}: not rendered.`);
    if (typeof entry.revision === 'number') {
      tip.appendMarkdown(`\n\nrevision ${entry.revision}${entry.updated ? `, updated ${entry.updated}` : ''}`);
    }
    if (typeof entry.tokens === 'number') {
      tip.appendMarkdown(`, ${entry.tokens} tokens`);
    }
    item.tooltip = tip;
    item.contextValue = effective ? 'magicfrog.effective' : 'magicfrog.shadowed';
    const uri = entryUri(entry);
    if (uri) {
      item.resourceUri = uri;
      item.id = `entry:${uri.toString()}`;
      item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
    }
    return item;
  }
}
