// The server's command surface (docs/protocol.md), typed for the client.

export interface Entry {
  dimension: string;
  scope?: string;
  key: string;
  layer?: string;
  path?: string;
  uri?: string;
  revision?: number;
  updated?: string;
  machine?: string;
  legacy?: boolean;
  tokens?: number;
}

export interface Described extends Entry {
  /** false: the session scope cannot see the note at all (another agent's, task's, machine's). */
  inScope?: boolean;
  effective?: boolean;
  shadowedBy?: Entry | null;
}

export interface EffectiveKey {
  key: string;
  winner: Entry;
  shadowed?: Entry[] | null;
}

export interface Scope {
  task?: string;
  agents?: string[] | null;
  machine?: string;
}

export interface EffectiveView {
  scope?: Scope | null;
  keys?: EffectiveKey[] | null;
  device?: Entry[] | null;
  skills?: Entry[] | null;
  /** The journal notes the rendered block takes, in its order (the boot set). */
  boot?: Entry[] | null;
}

export const Commands = {
  render: 'magicfrog.render',
  renderInto: 'magicfrog.renderInto',
  effectiveView: 'magicfrog.effectiveView',
  describe: 'magicfrog.describe',
  promote: 'magicfrog.promote',
  exportMemory: 'magicfrog.export',
  importMemory: 'magicfrog.import',
  rollup: 'magicfrog.rollup',
  today: 'magicfrog.today',
  showEntry: 'magicfrog.showEntry',
  sync: 'magicfrog.sync',
  syncStatus: 'magicfrog.syncStatus',
  sessionInfo: 'magicfrog.sessionInfo',
  search: 'magicfrog.search',
} as const;

/** One hit of magicfrog.search: the note, its best passage and where that is in the file. */
export interface SearchHit {
  dimension: string;
  key: string;
  ref: string;
  path: string;
  /** The passage in the file: an LSP Location (lines from 0, UTF-16 characters). */
  location: { uri: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } };
  effective: boolean;
  score: number;
  snippet: string;
  /** The passage's lines in the note's body, from 1. */
  start_line: number;
  end_line: number;
}

/** magicfrog.search's answer, best first. */
export interface SearchResult {
  hits: SearchHit[] | null;
  total: number;
  warnings?: string[];
}

/** magicfrog.sessionInfo: what the server loaded, asked instead of recomputed. */
export interface SessionInfo {
  projectDir: string;
  dataDir: string;
  /** The session scope's agents: the settings', else the project's. */
  agents: string[] | null;
  participant: string;
  task: string;
  machine: string;
}

/** The report of magicfrog.sync and magicfrog.syncStatus (fields as the server names them). */
export interface SyncReport {
  Remote: string;
  Pushed: { Path: string }[] | null;
  Pulled: { Path: string }[] | null;
  Conflicts: { Path: string; Reason: string }[] | null;
  Held: { Path: string; Reason: string }[] | null;
  LastSync: string;
  Unreachable?: string;
}

export const MemoryChangedNotification = 'magicfrog/memoryChanged';

/** magicfrog/compare: show the disk version a save conflict found beside the buffer. */
export const CompareNotification = 'magicfrog/compare';

export interface CompareParams {
  uri: string;
  title: string;
  disk: string;
  revision: number;
}

/** magicfrog.render {details: true} (docs/protocol.md). */
export interface RenderDetails {
  text: string;
  generation: string;
  tokens: number;
  budget: number;
  header?: string[] | null;
  groups?: { name: string; line: number; tokens: number; notes: number; omitted?: number }[] | null;
  omitted?: { ref: string; tokens: number; reason: string; line: number }[] | null;
}

/** magicfrog.renderInto's answer. */
export interface RenderIntoResult {
  path: string;
  uri: string;
  outcome: 'created' | 'appended' | 'replaced' | 'unchanged';
  generation: string;
  tokens: number;
}

export interface MemoryChangedParams {
  generation?: string;
}

/** The chain, most specific first, then the non-merging device dimension. */
export const DIMENSION_ORDER = ['task', 'agent', 'user', 'account', 'device'];

export const PROMOTION_TARGETS: { to: 'agent' | 'user' | 'account' | 'skills'; detail: string }[] = [
  { to: 'agent', detail: 'every task of this agent (or all agents) sees it' },
  { to: 'user', detail: 'every agent working for this user sees it' },
  { to: 'account', detail: 'everyone in the account sees it' },
  { to: 'skills', detail: 'a skill: listed in the <memory> block by name and description' },
];

/** errcode's failure codes the client decides on (JSON-RPC error `data.code`, docs/protocol.md). */
export const ErrorCodes = {
  severalAgents: 'several-agents',
} as const;

/**
 * The agents to choose from when a command was refused because the project names
 * several and none was chosen (`data.code` "several-agents"); undefined for any
 * other failure. Decided on the code, never on the message.
 */
export function severalAgentsChoices(e: unknown): string[] | undefined {
  const data = (e as { data?: unknown } | null | undefined)?.data as { code?: unknown; choices?: unknown } | null | undefined;
  if (!data || data.code !== ErrorCodes.severalAgents) {
    return undefined;
  }
  return Array.isArray(data.choices) ? data.choices.filter((c): c is string => typeof c === 'string' && c !== '') : [];
}
