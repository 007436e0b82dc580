// MagicFrog memory: the VS Code client of mf-lsp. Activation only: it wires the
// client (client.ts), the views (views/) and the commands (commands.ts) together.
import * as vscode from 'vscode';
import { MemoryClient, settings } from './client';
import { registerCommands } from './commands';
import { restartsServer } from './config';
import { message } from './labels';
import { Commands, SyncReport } from './protocol';
import { MemoryDocuments, SCHEME } from './views/previews';
import { NoteStatusItem, SyncStatusItem } from './views/status';
import { MemoryTreeProvider } from './views/tree';

let client: MemoryClient | undefined;

/** Calls fn `ms` after the last of a burst of calls. */
function debounce(ms: number, fn: () => void): vscode.Disposable & { (): void } {
  let timer: NodeJS.Timeout | undefined;
  const call = (): void => {
    if (timer) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  return Object.assign(call, { dispose: () => timer && clearTimeout(timer) });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('MagicFrog Memory', { log: true });
  const c = new MemoryClient(output);
  client = c;
  const docs = new MemoryDocuments(c);
  const tree = new MemoryTreeProvider(() => (c.running ? docs.effectiveView() : Promise.resolve(undefined)));
  const status = new NoteStatusItem(c);
  const syncStatus = new SyncStatusItem(c);

  // One refresh per burst of memoryChanged notifications.
  const refreshAll = debounce(150, () => {
    docs.refresh();
    tree.refresh();
    void status.update();
    void syncStatus.update();
  });
  // A burst of saves is one sync, two seconds after the last.
  const syncSoon = debounce(2000, () => {
    c.execute<SyncReport>(Commands.sync, {}).then(
      (r) => {
        if (r.Conflicts && r.Conflicts.length > 0) {
          void vscode.window.showWarningMessage(`MagicFrog sync: ${r.Conflicts.length} note(s) in conflict: ${r.Conflicts.map((x) => x.Path).join(', ')}`);
        }
      },
      (e) => output.warn(`sync on save: ${message(e)}`),
    );
  });

  const restart = async (): Promise<void> => {
    await c.restart();
    tree.refresh();
    await status.update();
  };

  context.subscriptions.push(
    output,
    c,
    docs,
    status,
    syncStatus,
    refreshAll,
    syncSoon,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    docs.rendered.event(() => docs.markBudget()),
    vscode.window.onDidChangeVisibleTextEditors(() => docs.markBudget()),
    vscode.window.createTreeView('magicfrog.memoryTree', { treeDataProvider: tree, showCollapseAll: true }),
    c.memoryChanged.event(() => refreshAll()),
    c.compare.event((p) => void docs.showCompare(p).catch((e) => output.warn(`magicfrog/compare: ${message(e)}`))),
    vscode.window.onDidChangeActiveTextEditor(() => void status.update()),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc.uri.toString() === vscode.window.activeTextEditor?.document.uri.toString()) {
        setTimeout(() => void status.update(), 300);
      }
      if (doc.languageId === 'markdown' && settings().get<boolean>('syncOnSave')) {
        syncSoon();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (restartsServer((section) => e.affectsConfiguration(section))) {
        output.appendLine('Settings changed: restarting the server.');
        void restart();
      }
    }),
    ...registerCommands({ client: c, documents: docs, tree, restart }),
  );

  await c.start();
  await status.update();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
