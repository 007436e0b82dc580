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
  effective?: boolean;
  shadowedBy?: Entry | null;
}

export interface EffectiveKey {
  key: string;
  winner: Entry;
  shadowed?: Entry[] | null;
}

export interface EffectiveView {
  keys?: EffectiveKey[] | null;
  device?: Entry[] | null;
  skills?: Entry[] | null;
  /** The journal notes the rendered block takes, in its order (the boot set). */
  boot?: Entry[] | null;
}

export const Commands = {
  render: 'magicfrog.render',
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
} as const;

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
