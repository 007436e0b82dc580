// The "MagicFrog Memory" explorer view: the effective view by dimension. The nodes and
// their look come from labels.ts; this file makes VS Code tree items of them.
import * as vscode from 'vscode';
import { TreeItemShape, TreeNode, message, nest, treeItemShape, treeRoots } from '../labels';
import { EffectiveView, Entry } from '../protocol';

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

function icon(name: TreeItemShape['icon']): vscode.ThemeIcon {
  switch (name) {
    case 'folder':
      return vscode.ThemeIcon.Folder;
    case 'effective':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'shadowed':
      return new vscode.ThemeIcon('eye-closed', new vscode.ThemeColor('disabledForeground'));
    default:
      return new vscode.ThemeIcon(name);
  }
}

const collapsible = {
  expanded: vscode.TreeItemCollapsibleState.Expanded,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
};

export class MemoryTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: EffectiveView | undefined;
  private error: string | undefined;

  constructor(private readonly fetch: () => Promise<EffectiveView | undefined>) {}

  refresh(): void {
    this.view = undefined;
    this.error = undefined;
    this.changed.fire(undefined);
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
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
        this.error = message(e);
      }
    }
    if (this.error) {
      return [{ kind: 'message', text: `Could not read the effective view: ${this.error}` }];
    }
    return this.view ? treeRoots(this.view) : [];
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const shape = treeItemShape(node);
    const item = new vscode.TreeItem(shape.label, shape.collapsed ? collapsible[shape.collapsed] : vscode.TreeItemCollapsibleState.None);
    item.description = shape.description;
    item.iconPath = icon(shape.icon);
    item.contextValue = shape.contextValue;
    item.id = shape.id;
    if (shape.tooltip !== undefined) {
      item.tooltip = node.kind === 'entry' ? new vscode.MarkdownString(shape.tooltip) : shape.tooltip;
    }
    if (node.kind === 'entry') {
      const uri = entryUri(node.row.entry);
      if (uri) {
        item.resourceUri = uri;
        item.id = `entry:${uri.toString()}`;
        item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
      }
    }
    return item;
  }
}
