// The read-only documents of the magicfrog-memory: scheme: the render preview (with its
// budget marks), the effective view, and the disk side of a save conflict's diff.
import * as path from 'path';
import * as vscode from 'vscode';
import { MemoryClient } from '../client';
import { BLOCK_PATH, PREVIEW_SCHEME, VIEW_PATH } from '../config';
import { budgetMarks, effectiveViewMarkdown, message } from '../labels';
import { Commands, CompareParams, EffectiveView, RenderDetails } from '../protocol';

export const SCHEME = PREVIEW_SCHEME;
// Both are sent to the server (config.ts, documentSelector): Go to Definition works in them.
export const BLOCK_URI = vscode.Uri.from({ scheme: SCHEME, path: BLOCK_PATH });
export const VIEW_URI = vscode.Uri.from({ scheme: SCHEME, path: VIEW_PATH });

export class MemoryDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Fired after the render preview's text was produced (its marks are due). */
  readonly rendered = new vscode.EventEmitter<void>();
  /**
   * The agent the render preview and the effective view answer for, when the
   * user picked one with magicfrog.pickParticipant; otherwise the server's
   * participant (the setting, else the one agent in scope; several: MemoryClient asks).
   */
  participant: string | undefined;
  /** The last render preview's details, and how many header lines precede its block. */
  private details: RenderDetails | undefined;
  private headerLines = 0;
  /** The disk versions magicfrog/compare sent, by the path of their virtual document. */
  private readonly compared = new Map<string, string>();
  private readonly groupMarks = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorCodeLens.foreground') },
  });
  private readonly cutMarks = vscode.window.createTextEditorDecorationType({
    after: { margin: '0 0 0 2em', color: new vscode.ThemeColor('editorWarning.foreground') },
    isWholeLine: true,
  });

  constructor(private readonly client: MemoryClient) {}

  dispose(): void {
    this.changed.dispose();
    this.rendered.dispose();
    this.groupMarks.dispose();
    this.cutMarks.dispose();
  }

  /** The participant field of a render or effectiveView argument. */
  participantArg(): Record<string, unknown> {
    return this.participant ? { participant: this.participant } : {};
  }

  effectiveView(): Promise<EffectiveView> {
    return this.client.execute<EffectiveView>(Commands.effectiveView, this.participantArg());
  }

  /** Asks VS Code to read every open magicfrog-memory: document again. */
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
        return effectiveViewMarkdown(await this.effectiveView());
      }
      if (uri.path.startsWith('/disk/')) {
        return this.compared.get(uri.path) ?? '';
      }
      const d = await this.client.execute<RenderDetails | string>(Commands.render, { ...this.participantArg(), details: true });
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

  /** Opens VS Code's diff editor: the disk version a save conflict found ↔ the buffer. */
  async showCompare(p: CompareParams): Promise<void> {
    const note = vscode.Uri.parse(p.uri);
    const disk = vscode.Uri.from({ scheme: SCHEME, path: `/disk${note.path}`, query: `revision=${p.revision}` });
    this.compared.set(disk.path, p.disk);
    this.changed.fire(disk);
    await vscode.commands.executeCommand('vscode.diff', disk, note, p.title || `${path.basename(note.path)}: disk ↔ buffer`, { preview: false });
  }

  /** Marks the render preview: each group's tokens, ✂ on each note the budget leaves out. */
  markBudget(): void {
    const d = this.details;
    for (const editor of vscode.window.visibleTextEditors) {
      if (editor.document.uri.toString() !== BLOCK_URI.toString() || !d) {
        continue;
      }
      const at = (m: { line: number; text: string }): vscode.DecorationOptions[] => {
        const l = m.line + this.headerLines;
        if (l >= editor.document.lineCount) {
          return [];
        }
        const end = editor.document.lineAt(l).range.end;
        return [{ range: new vscode.Range(end, end), renderOptions: { after: { contentText: m.text } } }];
      };
      const marks = budgetMarks(d);
      editor.setDecorations(this.groupMarks, marks.groups.flatMap(at));
      editor.setDecorations(this.cutMarks, marks.cuts.flatMap(at));
    }
  }
}

/** Opens a file:// URI the server answered with (nothing for none). */
export async function openUri(uri: string | undefined): Promise<void> {
  if (!uri) {
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri, true));
  await vscode.window.showTextDocument(doc, { preview: false });
}
