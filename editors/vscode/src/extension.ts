// MagicFrog memory: the VS Code client of mf-lsp.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  Commands,
  CompareNotification,
  CompareParams,
  DIMENSION_ORDER,
  Described,
  EffectiveView,
  MemoryChangedNotification,
  MemoryChangedParams,
  PROMOTION_TARGETS,
  SyncReport,
  RenderDetails,
  RenderIntoResult,
} from './protocol';
import { INSTALL_COMMAND, findServer, initializationOptions } from './server';
import { MemoryTreeProvider, groupByDimension } from './tree';

const SECTION = 'magicfrog';
const SCHEME = 'magicfrog-memory';
const BLOCK_URI = vscode.Uri.from({ scheme: SCHEME, path: '/memory-block.xml' });
const VIEW_URI = vscode.Uri.from({ scheme: SCHEME, path: '/effective-view.md' });

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let memoryChanged: vscode.EventEmitter<MemoryChangedParams>;
let startError: string | undefined;
// The disk versions magicfrog/compare sent, by the path of their virtual document.
const compared = new Map<string, string>();
let onCompared: vscode.EventEmitter<vscode.Uri>;

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const found = findServer(config());
  if (!found.ok) {
    startError = found.message;
    output.appendLine(found.message);
    const copy = 'Copy Install Command';
    const settings = 'Open Settings';
    void vscode.window.showErrorMessage(found.message, copy, settings).then(async (choice) => {
      if (choice === copy) {
        await vscode.env.clipboard.writeText(INSTALL_COMMAND);
        void vscode.window.showInformationMessage(`Copied: ${INSTALL_COMMAND}`);
      } else if (choice === settings) {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'magicfrog.serverPath');
      }
    });
    return;
  }
  startError = undefined;
  output.appendLine(`Starting ${found.command} (from ${found.source})`);
  const serverOptions: ServerOptions = {
    command: found.command,
    args: [],
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    // Every Markdown file on disk goes to the server; it decides what is memory.
    documentSelector: [{ scheme: 'file', language: 'markdown' }],
    initializationOptions: initializationOptions(config()),
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };
  const c = new LanguageClient(SECTION, 'MagicFrog Memory', serverOptions, clientOptions);
  c.onNotification(MemoryChangedNotification, (params: MemoryChangedParams) => {
    memoryChanged.fire(params ?? {});
  });
  c.onNotification(CompareNotification, (params: CompareParams) => {
    void showCompare(params).catch((e) => output.warn(`magicfrog/compare: ${message(e)}`));
  });
  client = c;
  try {
    await c.start();
    memoryChanged.fire({});
  } catch (e) {
    startError = `MagicFrog: the language server failed to start: ${e instanceof Error ? e.message : String(e)}`;
    output.appendLine(startError);
    void vscode.window.showErrorMessage(startError, 'Show Output').then((choice) => {
      if (choice) {
        output.show();
      }
    });
  }
  void context;
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.dispose(2000);
    } catch (e) {
      output.appendLine(`Stopping the server: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Runs one of the server's commands; every argument is one object (docs/protocol.md). */
async function execute<T>(command: string, arg: object): Promise<T> {
  const c = client;
  if (!c) {
    throw new Error(startError ?? 'MagicFrog: the language server is not running.');
  }
  if (c.state !== State.Running) {
    await c.start();
  }
  return (await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] })) as T;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function reportErrors(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    void vscode.window.showErrorMessage(`MagicFrog: ${what} failed: ${message(e)}`);
  }
}

function activeMarkdownUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.scheme === 'file' && editor.document.languageId === 'markdown') {
    return editor.document.uri;
  }
  return undefined;
}

/** Agent ids the user may promote to: the settings', else the project's config. */
function knownAgents(): string[] {
  const fromSettings = (config().get<string[]>('agents') ?? []).filter((a) => a);
  if (fromSettings.length > 0) {
    return fromSettings;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    return [];
  }
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(folder, '.magicfrog', 'config.json'), 'utf8'));
    return Array.isArray(raw?.agents) ? raw.agents.filter((a: unknown) => typeof a === 'string' && a) : [];
  } catch {
    return [];
  }
}

/** Opens VS Code's diff editor: the disk version a save conflict found ↔ the buffer. */
async function showCompare(p: CompareParams): Promise<void> {
  const note = vscode.Uri.parse(p.uri);
  const disk = vscode.Uri.from({ scheme: SCHEME, path: `/disk${note.path}`, query: `revision=${p.revision}` });
  compared.set(disk.path, p.disk);
  onCompared.fire(disk);
  await vscode.commands.executeCommand('vscode.diff', disk, note, p.title || `${path.basename(note.path)}: disk ↔ buffer`, { preview: false });
}

/** "task T-7 · agent larry · machine 3f9c…", or that nothing is bound. */
function scopeLine(view: EffectiveView): string {
  const sc = view.scope ?? {};
  const agents = (sc.agents ?? []).filter((a) => a);
  const parts = [sc.task ? `task \`${sc.task}\`` : 'no task', agents.length === 0 ? 'no agent' : `agent${agents.length > 1 ? 's' : ''} \`${agents.join('`, `')}\``];
  if (sc.machine) {
    parts.push(`machine \`${sc.machine}\``);
  }
  const unbound = !sc.task && agents.length === 0 ? ' (unbound: notes under a task or agent ID are not in this view)' : '';
  return `Seen as ${parts.join(' · ')}${unbound}.`;
}

function effectiveViewMarkdown(view: EffectiveView): string {
  const lines = ['# MagicFrog effective view', '', scopeLine(view), ''];
  const groups = groupByDimension(view);
  if (groups.size === 0) {
    lines.push('No memory in scope.');
  }
  const order = [...DIMENSION_ORDER, 'skills'];
  const rank = (d: string): number => (order.includes(d) ? order.indexOf(d) : order.length);
  for (const [dimension, rows] of [...groups].sort((a, b) => rank(a[0]) - rank(b[0]))) {
    lines.push(`## ${dimension}`, '', '| key | scope | revision | tokens | state | file |', '| --- | --- | --- | --- | --- | --- |');
    for (const r of rows) {
      const state = r.effective ? 'effective' : `shadowed${r.shadowedBy ? ` by ${r.shadowedBy.dimension}${r.shadowedBy.scope ? ' ' + r.shadowedBy.scope : ''}` : ''}`;
      const file = r.entry.path ?? r.entry.uri ?? '';
      lines.push(`| ${r.entry.key} | ${r.entry.scope ?? ''} | ${r.entry.revision ?? ''} | ${r.entry.tokens ?? ''} | ${state} | ${file} |`);
    }
    lines.push('');
  }
  const boot = view.boot ?? [];
  if (boot.length > 0) {
    lines.push('## journal boot set', '', 'What the agent reads from its journals, in this order.', '');
    boot.forEach((e, i) => lines.push(`${i + 1}. ${e.dimension}${e.scope ? ' ' + e.scope : ''}: ${e.key}`));
    lines.push('');
  }
  return lines.join('\n');
}

/**
 * The agent the render preview and the effective view answer for, when the
 * user picked one with magicfrog.pickParticipant; otherwise the server's
 * participant (the setting, else the first agent in scope).
 */
let previewParticipant: string | undefined;

function participantArg(): Record<string, unknown> {
  return previewParticipant ? { participant: previewParticipant } : {};
}

class MemoryDocuments implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** The last render preview's details, and how many header lines precede its block. */
  details: RenderDetails | undefined;
  headerLines = 0;
  readonly rendered = new vscode.EventEmitter<void>();

  fire(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  refresh(): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === SCHEME) {
        this.changed.fire(doc.uri);
      }
    }
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    try {
      if (uri.path === VIEW_URI.path) {
        return effectiveViewMarkdown(await execute<EffectiveView>(Commands.effectiveView, participantArg()));
      }
      if (uri.path.startsWith('/disk/')) {
        return compared.get(uri.path) ?? '';
      }
      const d = await execute<RenderDetails | string>(Commands.render, { ...participantArg(), details: true });
      if (typeof d === 'string') {
        return d;
      }
      // Two comment lines say for whom the block answers and its tokens against
      // the budget; decorations mark the groups' tokens and what the budget leaves out.
      const header = d.header ?? [];
      this.details = d;
      this.headerLines = header.length;
      setTimeout(() => this.rendered.fire(), 0);
      return [...header, d.text].join('\n');
    } catch (e) {
      return `<!-- MagicFrog: could not render: ${message(e)} -->\n`;
    }
  }
}

class StatusItem {
  private readonly item = vscode.window.createStatusBarItem('magicfrog.status', vscode.StatusBarAlignment.Right, 100);
  private seq = 0;
  private lastError: string | undefined;

  constructor() {
    this.item.name = 'MagicFrog Memory';
    this.item.command = 'magicfrog.showEffectiveView';
  }

  dispose(): void {
    this.item.dispose();
  }

  async update(): Promise<void> {
    const seq = ++this.seq;
    const uri = activeMarkdownUri();
    if (!uri || !client) {
      this.item.hide();
      return;
    }
    let d: Described | null = null;
    try {
      d = await execute<Described | null>(Commands.describe, { uri: uri.toString() });
    } catch (e) {
      d = null;
      const text = message(e);
      if (text !== this.lastError) {
        this.lastError = text;
        output.warn(`magicfrog.describe ${uri.fsPath}: ${text}`);
      }
    }
    if (seq !== this.seq) {
      return;
    }
    if (!d || !d.dimension) {
      this.item.hide();
      return;
    }
    const scope = d.scope ? ` ${d.scope}` : '';
    const rev = typeof d.revision === 'number' ? ` · r${d.revision}` : '';
    const shadowed = d.effective === false;
    this.item.text = `$(${shadowed ? 'eye-closed' : 'database'}) ${d.dimension}${scope}${rev}${shadowed ? ' (shadowed)' : ''}`;
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(`**MagicFrog memory** — ${d.dimension}${scope}, key \`${d.key}\``);
    if (d.layer) {
      tip.appendMarkdown(`, layer \`${d.layer}\``);
    }
    tip.appendMarkdown(`\n\nrevision ${d.revision ?? 0}${d.updated ? `, updated ${d.updated}` : ''}`);
    if (shadowed) {
      const by = d.shadowedBy ? `${d.shadowedBy.dimension}${d.shadowedBy.scope ? ' ' + d.shadowedBy.scope : ''}` : 'another entry';
      tip.appendMarkdown(`\n\nShadowed by ${by}: not in the <memory> block.`);
    } else {
      tip.appendMarkdown('\n\nEffective: in the <memory> block.');
    }
    this.item.tooltip = tip;
    this.item.backgroundColor = shadowed ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}

/**
 * The sync status bar item: "synced 5 min ago · 2 to push · 1 conflict", from
 * magicfrog.syncStatus without fetching (offline), refreshed when memory
 * changes and every minute. Hidden while the data directory has no remote.
 */
class SyncStatusItem {
  private readonly item = vscode.window.createStatusBarItem('magicfrog.syncStatusItem', vscode.StatusBarAlignment.Right, 99);
  private readonly timer: NodeJS.Timeout;

  constructor() {
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
    if (!client) {
      this.item.hide();
      return;
    }
    let r: SyncReport;
    try {
      r = await execute<SyncReport>(Commands.syncStatus, { offline: true });
    } catch {
      this.item.hide(); // no remote yet, or the server is starting
      return;
    }
    const n = (xs: unknown[] | null | undefined) => (xs ? xs.length : 0);
    const last = r.LastSync && !r.LastSync.startsWith('0001') ? Date.parse(r.LastSync) : NaN;
    const ago = isNaN(last) ? 'never synced' : `synced ${Math.max(0, Math.round((Date.now() - last) / 60_000))} min ago`;
    const parts = [ago];
    if (n(r.Pushed)) {
      parts.push(`${n(r.Pushed)} to push`);
    }
    if (n(r.Conflicts)) {
      parts.push(`${n(r.Conflicts)} conflict${n(r.Conflicts) === 1 ? '' : 's'}`);
    }
    this.item.text = `$(sync) ${parts.join(' · ')}`;
    this.item.tooltip = `MagicFrog sync with ${r.Remote}: click to sync now` +
      (n(r.Conflicts) ? `\nConflicts: ${(r.Conflicts ?? []).map((c) => c.Path).join(', ')}` : '');
    this.item.backgroundColor = n(r.Conflicts) ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }
}

async function openUri(uri: string | undefined): Promise<void> {
  if (!uri) {
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true));
  await vscode.window.showTextDocument(doc, { preview: false });
}

const budgetMarks = vscode.window.createTextEditorDecorationType({
  after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground') },
});
const cutMarks = vscode.window.createTextEditorDecorationType({
  after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorWarning.foreground') },
  isWholeLine: true,
});

/** Marks the render preview: each group's tokens, ✂ on each note the budget leaves out. */
function markBudget(documents: MemoryDocuments): void {
  const d = documents.details;
  for (const editor of vscode.window.visibleTextEditors) {
    if (editor.document.uri.toString() !== BLOCK_URI.toString() || !d) {
      continue;
    }
    const at = (line: number, text: string): vscode.DecorationOptions | undefined => {
      const l = line + documents.headerLines;
      if (l >= editor.document.lineCount) {
        return undefined;
      }
      const end = editor.document.lineAt(l).range.end;
      return { range: new vscode.Range(end, end), renderOptions: { after: { contentText: text } } };
    };
    const groups = (d.groups ?? []).map((g) => at(g.line, `${g.tokens} tokens, ${plural(g.notes, 'note')}${g.omitted ? `, ✂ ${g.omitted} left out` : ''}`)).filter((x): x is vscode.DecorationOptions => !!x);
    const cuts = (d.omitted ?? []).map((o) =>
      at(o.line, o.reason === 'unregistered-scope' ? "unregistered folder: in no one's view" : `✂ left out by the budget: ${o.tokens} tokens`)).filter((x): x is vscode.DecorationOptions => !!x);
    editor.setDecorations(budgetMarks, groups);
    editor.setDecorations(cutMarks, cuts);
  }
}

/** The agent-host files a project may have, for magicfrog.renderInto. */
function hostFileChoices(): vscode.QuickPickItem[] {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return ['CLAUDE.md', 'AGENTS.md'].map((name) => {
    const exists = folder ? fs.existsSync(path.join(folder, name)) : false;
    return { label: name, description: exists ? 'exists: its managed section is updated' : 'new file' };
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('MagicFrog Memory', { log: true });
  memoryChanged = new vscode.EventEmitter<MemoryChangedParams>();
  const documents = new MemoryDocuments();
  onCompared = new vscode.EventEmitter<vscode.Uri>();
  const tree = new MemoryTreeProvider(() => (client ? execute<EffectiveView>(Commands.effectiveView, participantArg()) : Promise.resolve(undefined)));
  const status = new StatusItem();
  const syncStatus = new SyncStatusItem();
  context.subscriptions.push(
    output,
    memoryChanged,
    status,
    syncStatus,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents),
    budgetMarks,
    onCompared,
    onCompared.event((uri) => documents.fire(uri)),
    documents.rendered.event(() => markBudget(documents)),
    vscode.window.onDidChangeVisibleTextEditors(() => markBudget(documents)),
    vscode.window.createTreeView('magicfrog.memoryTree', { treeDataProvider: tree, showCollapseAll: true }),
  );

  // One refresh per burst of memoryChanged notifications.
  let timer: NodeJS.Timeout | undefined;
  let syncTimer: NodeJS.Timeout | undefined;
  context.subscriptions.push(
    memoryChanged.event(() => {
      if (timer) {
        clearTimeout(timer);
      }
      timer = setTimeout(() => {
        timer = undefined;
        documents.refresh();
        tree.refresh();
        void status.update();
        void syncStatus.update();
      }, 150);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void status.update()),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (doc.uri.toString() === vscode.window.activeTextEditor?.document.uri.toString()) {
        setTimeout(() => void status.update(), 300);
      }
      if (doc.languageId === 'markdown' && vscode.workspace.getConfiguration(SECTION).get<boolean>('syncOnSave')) {
        // A burst of saves is one sync, two seconds after the last.
        if (syncTimer) {
          clearTimeout(syncTimer);
        }
        syncTimer = setTimeout(() => {
          syncTimer = undefined;
          execute<SyncReport>(Commands.sync, {}).then(
            (r) => {
              if (r.Conflicts && r.Conflicts.length > 0) {
                void vscode.window.showWarningMessage(`MagicFrog sync: ${r.Conflicts.length} note(s) in conflict: ${r.Conflicts.map((c) => c.Path).join(', ')}`);
              }
            },
            (e) => output.warn(`sync on save: ${message(e)}`),
          );
        }, 2000);
      }
    }),
  );

  const restart = async (): Promise<void> => {
    await stopClient();
    await startClient(context);
    tree.refresh();
    await status.update();
  };

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION) && !e.affectsConfiguration(`${SECTION}.trace`) && !e.affectsConfiguration(`${SECTION}.syncOnSave`)) {
        output.appendLine('Settings changed: restarting the server.');
        void restart();
      }
    }),

    vscode.commands.registerCommand('magicfrog.restartServer', restart),
    vscode.commands.registerCommand('magicfrog.refreshMemoryTree', () => tree.refresh()),

    vscode.commands.registerCommand('magicfrog.renderMemoryBlock', () =>
      reportErrors('rendering the memory block', async () => {
        const doc = await vscode.workspace.openTextDocument(BLOCK_URI);
        documents.refresh();
        await vscode.window.showTextDocument(doc, { preview: false });
      }),
    ),

    vscode.commands.registerCommand('magicfrog.writeMemoryBlockInto', (file?: string) =>
      reportErrors('writing the memory block into a file', async () => {
        let target = typeof file === 'string' ? file : undefined;
        if (!target) {
          const picked = await vscode.window.showQuickPick(hostFileChoices(), {
            title: 'Write the <memory> block into the managed section of…',
            placeHolder: 'Only the text between the mf-lsp marker comments changes',
          });
          if (!picked) {
            return;
          }
          target = picked.label;
        }
        const r = await execute<RenderIntoResult>(Commands.renderInto, { ...participantArg(), file: target });
        const open = 'Open';
        const choice = await vscode.window.showInformationMessage(
          `MagicFrog: ${path.basename(r.path)}: ${r.outcome} (generation ${r.generation}, ${r.tokens} tokens).`, open);
        if (choice === open) {
          await vscode.window.showTextDocument(vscode.Uri.file(r.path));
        }
      }),
    ),

    vscode.commands.registerCommand('magicfrog.pickParticipant', () =>
      reportErrors('picking the participant', async () => {
        const current = previewParticipant ?? (config().get<string>('participant') ?? '').trim();
        // The agents in scope, and any other ID typed into the box: an agent
        // named here is an agent ID for the preview, registered or not.
        const qp = vscode.window.createQuickPick();
        qp.title = 'Render the memory block for which agent?';
        qp.placeholder = 'A block is for one participant: the task plus one agent (type another agent ID)';
        qp.items = knownAgents().map((id) => ({ label: id, description: id === current ? 'current' : undefined }));
        const picked = await new Promise<string | undefined>((resolve) => {
          qp.onDidAccept(() => resolve((qp.selectedItems[0]?.label ?? qp.value).trim() || undefined));
          qp.onDidHide(() => resolve(undefined));
          qp.show();
        });
        qp.dispose();
        if (!picked) {
          return;
        }
        previewParticipant = picked;
        output.appendLine(`Render preview and effective view: participant ${picked}.`);
        documents.refresh();
        tree.refresh();
      }),
    ),

    vscode.commands.registerCommand('magicfrog.showEffectiveView', () =>
      reportErrors('showing the effective view', async () => {
        const doc = await vscode.workspace.openTextDocument(VIEW_URI);
        documents.refresh();
        await vscode.window.showTextDocument(doc, { preview: false });
        tree.refresh();
        await vscode.commands.executeCommand('magicfrog.memoryTree.focus');
      }),
    ),

    vscode.commands.registerCommand('magicfrog.promoteNote', (target?: vscode.Uri) =>
      reportErrors('promotion', async () => {
        const uri = target instanceof vscode.Uri ? target : activeMarkdownUri();
        if (!uri) {
          void vscode.window.showWarningMessage('MagicFrog: open a memory note to promote it.');
          return;
        }
        const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
        if (editor?.document.isDirty) {
          await editor.document.save();
        }
        type Pick = vscode.QuickPickItem & { to: string; scope?: string };
        const items: Pick[] = [];
        for (const t of PROMOTION_TARGETS) {
          if (t.to === 'agent') {
            for (const id of knownAgents()) {
              items.push({ label: `agent ${id}`, description: `only agent ${id}`, detail: t.detail, to: 'agent', scope: id });
            }
            items.push({ label: 'agent', description: 'shared by every agent', detail: t.detail, to: 'agent' });
          } else {
            items.push({ label: t.to, detail: t.detail, to: t.to });
          }
        }
        const picked = await vscode.window.showQuickPick(items, {
          title: `Promote ${path.basename(uri.fsPath)}`,
          placeHolder: 'Promote to which dimension?',
          matchOnDescription: true,
        });
        if (!picked) {
          return;
        }
        const how = await vscode.window.showQuickPick(
          [
            { label: 'Move', description: 'the note leaves its current dimension', copy: false },
            { label: 'Copy', description: 'keep the original where it is', copy: true },
          ],
          { title: `Promote to ${picked.label}`, placeHolder: 'Move or copy?' },
        );
        if (!how) {
          return;
        }
        const arg: Record<string, unknown> = { uri: uri.toString(), to: picked.to, copy: how.copy };
        if (picked.scope) {
          arg.scope = picked.scope;
        }
        // A compare-and-swap on both ends: the revision the note has now, and
        // for an existing destination the revision the user was shown and
        // agreed to replace.
        const described = await execute<Described | null>(Commands.describe, { uri: uri.toString() });
        if (typeof described?.revision === 'number') {
          arg.sourceRevision = described.revision;
        }
        let result: { uri?: string } | undefined;
        try {
          result = await execute<{ uri?: string }>(Commands.promote, arg);
        } catch (e) {
          const m = /destination is at revision (\d+)/.exec(message(e));
          if (!m) {
            throw e;
          }
          const replace = await vscode.window.showWarningMessage(
            `MagicFrog: ${picked.label} already has this note at revision ${m[1]}. Replace it?`,
            { modal: true },
            'Replace',
          );
          if (replace !== 'Replace') {
            return;
          }
          result = await execute<{ uri?: string }>(Commands.promote, { ...arg, destRevision: Number(m[1]) });
        }
        if (!how.copy && editor) {
          // The old file is gone: close its editor before showing the new one.
          await vscode.window.showTextDocument(editor.document, { preserveFocus: false, preview: false });
          await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        }
        await openUri(result?.uri);
        void vscode.window.showInformationMessage(`MagicFrog: promoted to ${picked.label}${result?.uri ? `: ${vscode.Uri.parse(result.uri).fsPath}` : ''}`);
        memoryChanged.fire({});
      }),
    ),

    vscode.commands.registerCommand('magicfrog.openToday', () =>
      reportErrors("opening today's daily note", async () => {
        const items: (vscode.QuickPickItem & { dimension: string; scope?: string })[] = [
          { label: 'task', description: "the project's journal", dimension: 'task' },
          ...knownAgents().map((id) => ({ label: `agent ${id}`, description: `agent ${id}'s journal`, dimension: 'agent', scope: id })),
          { label: 'agent', description: 'the shared agent journal', dimension: 'agent' },
          { label: 'user', dimension: 'user' },
          { label: 'account', dimension: 'account' },
        ];
        const picked = await vscode.window.showQuickPick(items, { title: "Open Today's Daily Note", placeHolder: 'Which journal?' });
        if (!picked) {
          return;
        }
        const arg: Record<string, unknown> = { dimension: picked.dimension };
        if (picked.scope) {
          arg.scope = picked.scope;
        }
        const result = await execute<{ uri?: string }>(Commands.today, arg);
        if (!result?.uri) {
          throw new Error('the server returned no uri');
        }
        await openUri(result.uri);
      }),
    ),

    vscode.commands.registerCommand('magicfrog.runDueRollups', () =>
      reportErrors('the rollups', async () => {
        const result = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Window, title: 'MagicFrog: running due rollups' },
          () => execute<{ written?: string[] }>(Commands.rollup, { kind: 'due' }),
        );
        const written = result?.written ?? [];
        if (written.length === 0) {
          void vscode.window.showInformationMessage('MagicFrog: no rollup was due.');
          return;
        }
        const open = 'Open';
        const choice = await vscode.window.showInformationMessage(`MagicFrog: wrote ${plural(written.length, 'rollup')}.`, open);
        if (choice === open) {
          const pick = written.length === 1
            ? written[0]
            : (await vscode.window.showQuickPick(written.map((u) => ({ label: path.basename(vscode.Uri.parse(u).fsPath), description: vscode.Uri.parse(u).fsPath, uri: u }))))?.uri;
          await openUri(pick);
        }
      }),
    ),

    vscode.commands.registerCommand('magicfrog.exportMemory', () =>
      reportErrors('the export', async () => {
        const dirs = await vscode.window.showOpenDialog({
          canSelectFiles: false,
          canSelectFolders: true,
          canSelectMany: false,
          openLabel: 'Export Here',
          title: 'Export MagicFrog memory to a folder',
        });
        if (!dirs || dirs.length === 0) {
          return;
        }
        const device = await vscode.window.showQuickPick(
          [
            { label: 'Chain only', description: 'account, user, agent, task', withDevice: false },
            { label: 'Include device entries', description: 'under machine/…', withDevice: true },
          ],
          { title: 'Export MagicFrog memory' },
        );
        if (!device) {
          return;
        }
        const result = await execute<{ written?: number }>(Commands.exportMemory, { dir: dirs[0].fsPath, withDevice: device.withDevice });
        void vscode.window.showInformationMessage(`MagicFrog: exported ${plural(result?.written ?? 0, 'note')} to ${dirs[0].fsPath}.`);
      }),
    ),

    vscode.commands.registerCommand('magicfrog.importMemory', () =>
      reportErrors('the import', async () => {
        const dirs = await vscode.window.showOpenDialog({
          canSelectFiles: false,
          canSelectFolders: true,
          canSelectMany: false,
          openLabel: 'Import',
          title: 'Import MagicFrog memory from an exported folder',
        });
        if (!dirs || dirs.length === 0) {
          return;
        }
        const result = await execute<{ imported?: number; unchanged?: number; skipped?: unknown[] | null }>(Commands.importMemory, { dir: dirs[0].fsPath });
        const skipped = result?.skipped ?? [];
        const unchanged = typeof result?.unchanged === 'number' && result.unchanged > 0 ? ` (${result.unchanged} unchanged)` : '';
        const text = `MagicFrog: imported ${plural(result?.imported ?? 0, 'note')}${unchanged} from ${dirs[0].fsPath}` + (skipped.length ? `, skipped ${skipped.length}.` : '.');
        if (skipped.length) {
          for (const s of skipped) {
            output.appendLine(`import skipped: ${typeof s === 'string' ? s : JSON.stringify(s)}`);
          }
          const show = 'Show Skipped';
          if ((await vscode.window.showWarningMessage(text, show)) === show) {
            output.show();
          }
        } else {
          void vscode.window.showInformationMessage(text);
        }
        memoryChanged.fire({});
      }),
    ),
  );

  await startClient(context);
  await status.update();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
