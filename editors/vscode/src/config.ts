// Reading the magicfrog.* settings. Pure: it reads through SettingsReader (which a
// vscode.WorkspaceConfiguration is), so it runs in the unit tests without VS Code.
import * as path from 'path';

export const SECTION = 'magicfrog';

/** What the settings are read through: vscode.workspace.getConfiguration(SECTION). */
export interface SettingsReader {
  get<T>(key: string): T | undefined;
}

/** Where path settings are resolved: the first workspace folder and the home directory. */
export interface PathContext {
  folder?: string;
  home: string;
}

/** Expands `~` and `${workspaceFolder}` in a path setting; a relative path is the workspace folder's. */
export function resolvePathSetting(value: string, ctx: PathContext): string {
  let p = value.trim();
  if (ctx.folder) {
    p = p.replace(/\$\{workspaceFolder\}/g, ctx.folder);
  }
  if (p === '~') {
    p = ctx.home;
  } else if (p.startsWith('~/') || p.startsWith('~\\')) {
    p = path.join(ctx.home, p.slice(2));
  }
  if (!path.isAbsolute(p) && ctx.folder) {
    p = path.join(ctx.folder, p);
  }
  return p;
}

/** The scheme of the extension's read-only documents (views/previews.ts), and its two views. */
export const PREVIEW_SCHEME = 'magicfrog-memory';
export const BLOCK_PATH = '/memory-block.xml';
export const VIEW_PATH = '/effective-view.md';

/** A document filter, as vscode.DocumentFilter and the language client take it. */
export interface DocumentFilter {
  scheme: string;
  language?: string;
  pattern?: string;
}

/**
 * The documents the language client sends the server (didOpen, didChange) and asks
 * it about: every Markdown file on disk (the server decides which are memory), and
 * the two views, the `<memory>` block preview and the effective view, so that Go to
 * Definition works in them (the server resolves a block's note, a path or a key
 * there; docs/protocol.md). The disk side of a conflict's diff
 * (magicfrog-memory:/disk/…) is an old version of a note, not a view: not sent.
 */
export function documentSelector(): DocumentFilter[] {
  return [
    { scheme: 'file', language: 'markdown' },
    ...[BLOCK_PATH, VIEW_PATH].map((p) => ({ scheme: PREVIEW_SCHEME, pattern: `**${p}` })),
  ];
}

export interface InitializationOptions {
  dataDir?: string;
  task?: string;
  agents?: string[];
  participant?: string;
  machine?: string;
  budget?: number;
  earlier?: number;
  summarizer?: string;
  autoRevision?: boolean;
}

function text(cfg: SettingsReader, key: string): string {
  return (cfg.get<string>(key) ?? '').trim();
}

function count(cfg: SettingsReader, key: string): number | undefined {
  const n = cfg.get<number | null>(key);
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** The agent IDs the settings name (empty: the server's default, the project's). */
export function configuredAgents(cfg: SettingsReader): string[] {
  return (cfg.get<string[]>('agents') ?? []).map((a) => String(a).trim()).filter((a) => a);
}

/** Mirrors docs/protocol.md: only options the user set are sent, so the server's defaults apply. */
export function initializationOptions(cfg: SettingsReader, ctx: PathContext): InitializationOptions {
  const opts: InitializationOptions = {};
  const dataDir = text(cfg, 'dataDir');
  if (dataDir) {
    opts.dataDir = resolvePathSetting(dataDir, ctx);
  }
  for (const key of ['task', 'participant', 'machine', 'summarizer'] as const) {
    const v = text(cfg, key);
    if (v) {
      opts[key] = v;
    }
  }
  const agents = configuredAgents(cfg);
  if (agents.length > 0) {
    opts.agents = agents;
  }
  for (const key of ['budget', 'earlier'] as const) {
    const n = count(cfg, key);
    if (n !== undefined) {
      opts[key] = n;
    }
  }
  const autoRevision = cfg.get<boolean>('autoRevision');
  if (typeof autoRevision === 'boolean') {
    opts.autoRevision = autoRevision;
  }
  return opts;
}

/**
 * Whether a settings change restarts the server: every magicfrog.* setting is an
 * initialization option, except the trace level and syncOnSave, which the client reads
 * as it goes.
 */
export function restartsServer(affects: (section: string) => boolean): boolean {
  return affects(SECTION) && !affects(`${SECTION}.trace`) && !affects(`${SECTION}.syncOnSave`);
}
