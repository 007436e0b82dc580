// Finding the mf-lsp binary: the setting, else PATH, else where `go install` puts it.
// No VS Code here: the lookup reads the environment it is given (unit-tested).
import * as fs from 'fs';
import * as path from 'path';
import { PathContext, resolvePathSetting } from './config';

export const INSTALL_COMMAND = 'go install github.com/magicfrog/mf-lsp/cmd/mf-lsp@latest';

export type ServerLookup =
  | { ok: true; command: string; source: 'setting' | 'PATH' | 'GOPATH' }
  | { ok: false; message: string };

/** The environment the lookup searches: PATH, GOBIN, GOPATH and the platform. */
export interface LookupEnv extends PathContext {
  env: Record<string, string | undefined>;
  platform: string;
}

function isExecutable(file: string, platform: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

function searchDirs(dirs: string[], platform: string): string | undefined {
  const names = platform === 'win32' ? ['mf-lsp.exe', 'mf-lsp'] : ['mf-lsp'];
  for (const dir of dirs.filter((d) => d)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate, platform)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/**
 * The server is `magicfrog.serverPath` (`configured`) when set, else `mf-lsp` on PATH,
 * else where `go install` puts it ($GOBIN, $GOPATH/bin, ~/go/bin).
 */
export function findServer(configured: string, where: LookupEnv): ServerLookup {
  if (configured.trim()) {
    const p = resolvePathSetting(configured, where);
    if (isExecutable(p, where.platform)) {
      return { ok: true, command: p, source: 'setting' };
    }
    return {
      ok: false,
      message: `MagicFrog: the setting magicfrog.serverPath points at "${p}", which is not an executable file. ` +
        `Fix the setting, or clear it to use mf-lsp from PATH (install: ${INSTALL_COMMAND}).`,
    };
  }
  const onPath = searchDirs((where.env.PATH ?? '').split(path.delimiter), where.platform);
  if (onPath) {
    return { ok: true, command: onPath, source: 'PATH' };
  }
  const goDirs = [
    where.env.GOBIN ?? '',
    ...(where.env.GOPATH ?? '').split(path.delimiter).filter((d) => d).map((d) => path.join(d, 'bin')),
    path.join(where.home, 'go', 'bin'),
  ];
  const inGo = searchDirs(goDirs, where.platform);
  if (inGo) {
    return { ok: true, command: inGo, source: 'GOPATH' };
  }
  return {
    ok: false,
    message: `MagicFrog: the language server mf-lsp was not found (magicfrog.serverPath is empty and mf-lsp is not on PATH). ` +
      `Install it with "${INSTALL_COMMAND}", or set magicfrog.serverPath to the binary.`,
  };
}
