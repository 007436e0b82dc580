// The MagicFrog: commands of the Command Palette, each a thin dialog over one of the
// server's workspace/executeCommand commands (docs/protocol.md).
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { MemoryClient, settings } from './client';
import { PromoteArgs } from './contract';
import { TargetItem, errorData, importSummary, journalItems, message, plural, promotionItems, searchItems } from './labels';
import { Commands, Described, RenderIntoResult, SearchResult } from './protocol';
import { BLOCK_URI, MemoryDocuments, VIEW_URI, openUri } from './views/previews';
import { activeMarkdownUri } from './views/status';
import { MemoryTreeProvider } from './views/tree';

/** What the commands act on. */
export interface CommandContext {
  client: MemoryClient;
  documents: MemoryDocuments;
  tree: MemoryTreeProvider;
  restart: () => Promise<void>;
}

async function reportErrors(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    void vscode.window.showErrorMessage(`MagicFrog: ${what} failed: ${message(e)}`);
  }
}

/** The agent-host files a project may have, for magicfrog.renderInto: in the project the server loaded. */
async function hostFileChoices(client: MemoryClient): Promise<vscode.QuickPickItem[]> {
  const project = (await client.sessionInfo())?.projectDir || vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return ['CLAUDE.md', 'AGENTS.md'].map((name) => {
    const exists = project ? fs.existsSync(path.join(project, name)) : false;
    return { label: name, description: exists ? 'exists: its managed section is updated' : 'new file' };
  });
}

/** The argument of a command that takes a dimension and, for one agent or task, its ID. */
function targetArg(t: TargetItem, key: 'to' | 'dimension'): Record<string, unknown> {
  return t.scope ? { [key]: t.to, scope: t.scope } : { [key]: t.to };
}

async function openPreview(ctx: CommandContext, uri: vscode.Uri): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  ctx.documents.refresh();
  await vscode.window.showTextDocument(doc, { preview: false });
}

async function writeMemoryBlockInto(ctx: CommandContext, file?: string): Promise<void> {
  let target = typeof file === 'string' ? file : undefined;
  if (!target) {
    const picked = await vscode.window.showQuickPick(hostFileChoices(ctx.client), {
      title: 'Write the <memory> block into the managed section of…',
      placeHolder: 'Only the text between the mf-lsp marker comments changes',
    });
    if (!picked) {
      return;
    }
    target = picked.label;
  }
  const r = await ctx.client.execute<RenderIntoResult>(Commands.renderInto, { ...ctx.documents.participantArg(), file: target });
  const open = 'Open';
  const choice = await vscode.window.showInformationMessage(
    `MagicFrog: ${path.basename(r.path)}: ${r.outcome} (generation ${r.generation}, ${r.tokens} tokens).`, open);
  if (choice === open) {
    await vscode.window.showTextDocument(vscode.Uri.file(r.path));
  }
}

async function pickParticipant(ctx: CommandContext): Promise<void> {
  const current = ctx.documents.participant ?? (settings().get<string>('participant') ?? '').trim();
  // The agents in scope, and any other ID typed into the box: an agent
  // named here is an agent ID for the preview, registered or not.
  const qp = vscode.window.createQuickPick();
  qp.title = 'Render the memory block for which agent?';
  qp.placeholder = 'A block is for one participant: the task plus one agent (type another agent ID)';
  qp.items = (await ctx.client.agents()).map((id) => ({ label: id, description: id === current ? 'current' : undefined }));
  const picked = await new Promise<string | undefined>((resolve) => {
    qp.onDidAccept(() => resolve((qp.selectedItems[0]?.label ?? qp.value).trim() || undefined));
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!picked) {
    return;
  }
  ctx.documents.participant = picked;
  ctx.client.output.appendLine(`Render preview and effective view: participant ${picked}.`);
  ctx.documents.refresh();
  ctx.tree.refresh();
}

async function promoteNote(ctx: CommandContext, target?: vscode.Uri): Promise<void> {
  const uri = target instanceof vscode.Uri ? target : activeMarkdownUri();
  if (!uri) {
    void vscode.window.showWarningMessage('MagicFrog: open a memory note to promote it.');
    return;
  }
  const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  if (editor?.document.isDirty) {
    await editor.document.save();
  }
  const picked = await vscode.window.showQuickPick(promotionItems(await ctx.client.agents()), {
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
  const arg: PromoteArgs = { uri: uri.toString(), ...targetArg(picked, 'to'), copy: how.copy };
  // A compare-and-swap on both ends: the revision the note has now, and
  // for an existing destination the revision the user was shown and
  // agreed to replace.
  const described = await ctx.client.execute<Described | null>(Commands.describe, { uri: uri.toString() });
  if (typeof described?.revision === 'number') {
    arg.sourceRevision = described.revision;
  }
  let result: { uri?: string } | undefined;
  try {
    result = await ctx.client.execute<{ uri?: string }>(Commands.promote, arg);
  } catch (e) {
    // Decided on the error's code, never its message: the destination exists
    // at data.revision (docs/protocol.md, "Errors").
    const data = errorData(e);
    if (data?.code !== 'stale' || data.end !== 'destination' || typeof data.revision !== 'number') {
      throw e;
    }
    const existing = data.revision;
    const replace = await vscode.window.showWarningMessage(
      `MagicFrog: ${picked.label} already has this note at revision ${existing}. Replace it?`,
      { modal: true },
      'Replace',
    );
    if (replace !== 'Replace') {
      return;
    }
    result = await ctx.client.execute<{ uri?: string }>(Commands.promote, { ...arg, destRevision: existing });
  }
  if (!how.copy && editor) {
    // The old file is gone: close its editor before showing the new one.
    await vscode.window.showTextDocument(editor.document, { preserveFocus: false, preview: false });
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  }
  await openUri(result?.uri);
  void vscode.window.showInformationMessage(`MagicFrog: promoted to ${picked.label}${result?.uri ? `: ${vscode.Uri.parse(result.uri).fsPath}` : ''}`);
  ctx.client.memoryChanged.fire({});
}

async function openToday(ctx: CommandContext): Promise<void> {
  const picked = await vscode.window.showQuickPick(journalItems(await ctx.client.agents()), { title: "Open Today's Daily Note", placeHolder: 'Which journal?' });
  if (!picked) {
    return;
  }
  const result = await ctx.client.execute<{ uri?: string }>(Commands.today, targetArg(picked, 'dimension'));
  if (!result?.uri) {
    throw new Error('the server returned no uri');
  }
  await openUri(result.uri);
}

/**
 * MagicFrog: Search Memory: magicfrog.search (the notes the server's participant sees,
 * `mf-lsp search`'s ranking), its hits in a quick pick; the one chosen opens with its
 * passage selected.
 */
async function searchMemory(ctx: CommandContext, query?: string): Promise<void> {
  const q = typeof query === 'string' && query.trim() !== '' ? query : await vscode.window.showInputBox({
    title: 'Search MagicFrog memory',
    prompt: 'Ask a question; dates in it ("last week") favour the journal days they name',
  });
  if (!q || q.trim() === '') {
    return;
  }
  const result = await ctx.client.execute<SearchResult>(Commands.search, { query: q });
  for (const w of result?.warnings ?? []) {
    ctx.client.output.appendLine(`search: ${w}`);
  }
  const items = searchItems(result);
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`MagicFrog: no note matches "${q}".`);
    return;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: `MagicFrog search: ${q} (${plural(result?.total ?? items.length, 'matching note')})`,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) {
    return;
  }
  const { uri, range } = picked.hit.location;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true));
  const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
  await vscode.window.showTextDocument(doc, { preview: false, selection });
}

async function runDueRollups(ctx: CommandContext): Promise<void> {
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'MagicFrog: running due rollups' },
    () => ctx.client.execute<{ written?: string[] }>(Commands.rollup, { kind: 'due' }),
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
}

async function pickFolder(openLabel: string, title: string): Promise<string | undefined> {
  const dirs = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel, title });
  return dirs && dirs.length > 0 ? dirs[0].fsPath : undefined;
}

async function exportMemory(ctx: CommandContext): Promise<void> {
  const dir = await pickFolder('Export Here', 'Export MagicFrog memory to a folder');
  if (!dir) {
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
  const result = await ctx.client.execute<{ written?: number }>(Commands.exportMemory, { dir, withDevice: device.withDevice });
  void vscode.window.showInformationMessage(`MagicFrog: exported ${plural(result?.written ?? 0, 'note')} to ${dir}.`);
}

async function importMemory(ctx: CommandContext): Promise<void> {
  const dir = await pickFolder('Import', 'Import MagicFrog memory from an exported folder');
  if (!dir) {
    return;
  }
  const result = await ctx.client.execute<{ imported?: number; unchanged?: number; skipped?: unknown[] | null }>(Commands.importMemory, { dir });
  const skipped = result?.skipped ?? [];
  const text = importSummary(result, dir);
  if (skipped.length) {
    for (const s of skipped) {
      ctx.client.output.appendLine(`import skipped: ${typeof s === 'string' ? s : JSON.stringify(s)}`);
    }
    const show = 'Show Skipped';
    if ((await vscode.window.showWarningMessage(text, show)) === show) {
      ctx.client.output.show();
    }
  } else {
    void vscode.window.showInformationMessage(text);
  }
  ctx.client.memoryChanged.fire({});
}

/** Registers every command of package.json's contributes.commands. */
export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const register = (id: string, what: string, fn: (...args: any[]) => Promise<void>): vscode.Disposable =>
    vscode.commands.registerCommand(id, (...args: unknown[]) => reportErrors(what, () => fn(...args)));
  return [
    vscode.commands.registerCommand('magicfrog.restartServer', ctx.restart),
    vscode.commands.registerCommand('magicfrog.refreshMemoryTree', () => ctx.tree.refresh()),
    register('magicfrog.renderMemoryBlock', 'rendering the memory block', () => openPreview(ctx, BLOCK_URI)),
    register('magicfrog.writeMemoryBlockInto', 'writing the memory block into a file', (file?: string) => writeMemoryBlockInto(ctx, file)),
    register('magicfrog.pickParticipant', 'picking the participant', () => pickParticipant(ctx)),
    register('magicfrog.showEffectiveView', 'showing the effective view', async () => {
      await openPreview(ctx, VIEW_URI);
      ctx.tree.refresh();
      await vscode.commands.executeCommand('magicfrog.memoryTree.focus');
    }),
    register('magicfrog.promoteNote', 'promotion', (target?: vscode.Uri) => promoteNote(ctx, target)),
    register('magicfrog.openToday', "opening today's daily note", () => openToday(ctx)),
    register('magicfrog.runDueRollups', 'the rollups', () => runDueRollups(ctx)),
    register('magicfrog.searchMemory', 'the search', (query?: string) => searchMemory(ctx, query)),
    register('magicfrog.exportMemory', 'the export', () => exportMemory(ctx)),
    register('magicfrog.importMemory', 'the import', () => importMemory(ctx)),
  ];
}
