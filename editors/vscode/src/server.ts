// Finding the mf-lsp binary and building the initializationOptions from settings.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';

export const INSTALL_COMMAND = 'go install github.com/magicfrog/mf-lsp/cmd/mf-lsp@latest';

export type ServerLookup =
  | { ok: true; command: string; source: 'setting' | 'PATH' | 'GOPATH' }
  | { ok: false; message: string };

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === 'win32') {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string): string {
  if (p === '~') {
    return os.homedir();
  }
  if (p.startsWith('~/') || p.startsWith('~\\')) {
    return path.join(os.homedir(), p.slice(2));
  }
  return p;
}

function binaryNames(): string[] {
  return process.platform === 'win32' ? ['mf-lsp.exe', 'mf-lsp'] : ['mf-lsp'];
}

function searchDirs(dirs: string[]): string | undefined {
  for (const dir of dirs) {
    if (!dir) {
      continue;
    }
    for (const name of binaryNames()) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** Expands `~` and `${workspaceFolder}` in a path setting. */
export function resolvePathSetting(value: string): string {
  let p = value.trim();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (folder) {
    p = p.replace(/\$\{workspaceFolder\}/g, folder);
  }
  p = expandHome(p);
  if (!path.isAbsolute(p) && folder) {
    p = path.join(folder, p);
  }
  return p;
}

/**
 * The server is `magicfrog.serverPath` when set, else `mf-lsp` on PATH, else
 * where `go install` puts it ($GOBIN, $GOPATH/bin, ~/go/bin).
 */
export function findServer(config: vscode.WorkspaceConfiguration): ServerLookup {
  const configured = (config.get<string>('serverPath') ?? '').trim();
  if (configured) {
    const p = resolvePathSetting(configured);
    if (isExecutable(p)) {
      return { ok: true, command: p, source: 'setting' };
    }
    return {
      ok: false,
      message: `MagicFrog: the setting magicfrog.serverPath points at "${p}", which is not an executable file. ` +
        `Fix the setting, or clear it to use mf-lsp from PATH (install: ${INSTALL_COMMAND}).`,
    };
  }
  const onPath = searchDirs((process.env.PATH ?? '').split(path.delimiter));
  if (onPath) {
    return { ok: true, command: onPath, source: 'PATH' };
  }
  const goDirs = [
    process.env.GOBIN ?? '',
    ...(process.env.GOPATH ?? '').split(path.delimiter).filter((d) => d).map((d) => path.join(d, 'bin')),
    path.join(os.homedir(), 'go', 'bin'),
  ];
  const inGo = searchDirs(goDirs);
  if (inGo) {
    return { ok: true, command: inGo, source: 'GOPATH' };
  }
  return {
    ok: false,
    message: `MagicFrog: the language server mf-lsp was not found (magicfrog.serverPath is empty and mf-lsp is not on PATH). ` +
      `Install it with "${INSTALL_COMMAND}", or set magicfrog.serverPath to the binary.`,
  };
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

/** Mirrors docs/protocol.md: only options the user set are sent, so the server's defaults apply. */
export function initializationOptions(config: vscode.WorkspaceConfiguration): InitializationOptions {
  const opts: InitializationOptions = {};
  const str = (key: string): string => (config.get<string>(key) ?? '').trim();
  const dataDir = str('dataDir');
  if (dataDir) {
    opts.dataDir = resolvePathSetting(dataDir);
  }
  const task = str('task');
  if (task) {
    opts.task = task;
  }
  const agents = (config.get<string[]>('agents') ?? []).map((a) => String(a).trim()).filter((a) => a);
  if (agents.length > 0) {
    opts.agents = agents;
  }
  const participant = str('participant');
  if (participant) {
    opts.participant = participant;
  }
  const machine = str('machine');
  if (machine) {
    opts.machine = machine;
  }
  const budget = config.get<number | null>('budget');
  if (typeof budget === 'number' && Number.isFinite(budget) && budget > 0) {
    opts.budget = Math.floor(budget);
  }
  const earlier = config.get<number | null>('earlier');
  if (typeof earlier === 'number' && Number.isFinite(earlier) && earlier > 0) {
    opts.earlier = Math.floor(earlier);
  }
  const summarizer = str('summarizer');
  if (summarizer) {
    opts.summarizer = summarizer;
  }
  const autoRevision = config.get<boolean>('autoRevision');
  if (typeof autoRevision === 'boolean') {
    opts.autoRevision = autoRevision;
  }
  return opts;
}
