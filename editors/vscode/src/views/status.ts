// The two status bar items: the current note's standing, and sync. Their texts come
// from labels.ts (noteStatus, syncStatus).
import * as vscode from 'vscode';
import { MemoryClient } from '../client';
import { StatusFace, message, noteStatus, syncStatus } from '../labels';
import { Commands, Described, SyncReport } from '../protocol';

/** The active editor's document when it is a Markdown file on disk. */
export function activeMarkdownUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.scheme === 'file' && editor.document.languageId === 'markdown') {
    return editor.document.uri;
  }
  return undefined;
}

function show(item: vscode.StatusBarItem, face: StatusFace, markdown: boolean): void {
  item.text = face.text;
  item.tooltip = markdown ? new vscode.MarkdownString(face.tooltip) : face.tooltip;
  item.backgroundColor = face.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  item.show();
}

/** The note item: "task T-7 · r3", marked when the note is shadowed or not in scope. */
export class NoteStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('magicfrog.status', vscode.StatusBarAlignment.Right, 100);
  private seq = 0;
  private lastError: string | undefined;

  constructor(private readonly client: MemoryClient) {
    this.item.name = 'MagicFrog Memory';
    this.item.command = 'magicfrog.showEffectiveView';
  }

  dispose(): void {
    this.item.dispose();
  }

  async update(): Promise<void> {
    const seq = ++this.seq;
    const uri = activeMarkdownUri();
    if (!uri || !this.client.running) {
      this.item.hide();
      return;
    }
    let d: Described | null = null;
    try {
      d = await this.client.execute<Described | null>(Commands.describe, { uri: uri.toString() });
    } catch (e) {
      const text = message(e);
      if (text !== this.lastError) {
        this.lastError = text;
        this.client.output.warn(`magicfrog.describe ${uri.fsPath}: ${text}`);
      }
    }
    if (seq !== this.seq) {
      return;
    }
    const face = noteStatus(d);
    if (face) {
      show(this.item, face, true);
    } else {
      this.item.hide();
    }
  }
}

/**
 * The sync item: "synced 5 min ago · 2 to push · 1 conflict", from
 * magicfrog.syncStatus without fetching (offline), refreshed when memory
 * changes and every minute. Hidden while the data directory has no remote.
 */
export class SyncStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('magicfrog.syncStatusItem', vscode.StatusBarAlignment.Right, 99);
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly client: MemoryClient) {
    this.item.name = 'MagicFrog Sync';
    this.item.command = Commands.sync;
    this.timer = setInterval(() => void this.update(), 60_000);
    this.timer.unref();
  }

  dispose(): void {
    clearInterval(this.timer);
    this.item.dispose();
  }

  async update(): Promise<void> {
    if (!this.client.running) {
      this.item.hide();
      return;
    }
    try {
      show(this.item, syncStatus(await this.client.execute<SyncReport>(Commands.syncStatus, { offline: true }), Date.now()), false);
    } catch {
      this.item.hide(); // no remote yet, or the server is starting
    }
  }
}
