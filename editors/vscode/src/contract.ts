// Code generated from session/commands.go and engine/errcode by `go test ./session -run TestContractFiles -update`; DO NOT EDIT.
//
// The server's commands (docs/protocol.md): each command's argument type, and
// the data of a failed command's JSON-RPC error (decide on `code`, never on the message).

/** A failed command's JSON-RPC error `data` (engine/errcode.Data), and an MCP tool error's structured content. */
export interface ErrorData {
  code: string;
  revision?: number;
  hash?: string;
  end?: string;
  path?: string;
  rule?: string;
  choices?: string[];
}

/** magicfrog.render's argument. */
export interface RenderArgs {
  task?: string;
  agents?: string[];
  machine?: string;
  participant?: string;
  budget?: number;
  previous?: string;
  today?: string;
  earlier?: number;
  details?: boolean;
}

/** magicfrog.renderInto's argument. */
export interface RenderIntoArgs {
  task?: string;
  agents?: string[];
  machine?: string;
  participant?: string;
  budget?: number;
  previous?: string;
  today?: string;
  earlier?: number;
  details?: boolean;
  file?: string;
}

/** magicfrog.effectiveView's argument. */
export interface EffectiveViewArgs {
  task?: string;
  agents?: string[];
  machine?: string;
  participant?: string;
}

/** magicfrog.describe's argument. */
export interface DescribeArgs {
  uri?: string;
}

/** magicfrog.promote's argument. */
export interface PromoteArgs {
  uri?: string;
  to?: string;
  scope?: string;
  layer?: string;
  copy?: boolean;
  sourceRevision?: number;
  destRevision?: number;
  register?: boolean;
}

/** magicfrog.export's argument. */
export interface ExportArgs {
  dir?: string;
  withDevice?: boolean;
  allMachines?: boolean;
}

/** magicfrog.import's argument. */
export interface ImportArgs {
  dir?: string;
}

/** magicfrog.rollup's argument. */
export interface RollupArgs {
  kind?: string;
  period?: string;
  dimension?: string;
  scope?: string;
}

/** magicfrog.today's argument. */
export interface TodayArgs {
  dimension?: string;
  scope?: string;
  register?: boolean;
}

/** magicfrog.showEntry's argument. */
export interface ShowEntryArgs {
  uri?: string;
}

/** magicfrog.registerAgent's argument. */
export interface RegisterAgentArgs {
  id?: string;
  shared?: boolean;
}

/** magicfrog.registerTask's argument. */
export interface RegisterTaskArgs {
  id?: string;
  shared?: boolean;
}

/** magicfrog.resolveConflict's argument. */
export interface ResolveConflictArgs {
  uri?: string;
  choice?: string;
}

/** magicfrog.resolveOverwrite's argument. */
export interface ResolveOverwriteArgs {
  uri?: string;
  choice?: string;
}

/** magicfrog.sync's argument. */
export interface SyncArgs {
  remote?: string;
}

/** magicfrog.syncStatus's argument. */
export interface SyncStatusArgs {
  offline?: boolean;
}

/** magicfrog.syncResolve's argument. */
export interface SyncResolveArgs {
  path?: string;
  keep?: string;
}

/** magicfrog.sessionInfo's argument. */
export interface SessionInfoArgs {
}

/** magicfrog.skillsInto's argument. */
export interface SkillsIntoArgs {
  task?: string;
  agents?: string[];
  machine?: string;
  participant?: string;
  budget?: number;
  previous?: string;
  today?: string;
  earlier?: number;
  details?: boolean;
  dir?: string;
}

/** magicfrog.search's argument. */
export interface SearchArgs {
  query?: string;
  limit?: number;
}

/** Each command's argument type, by command name. */
export interface CommandArgs {
  'magicfrog.render': RenderArgs;
  'magicfrog.renderInto': RenderIntoArgs;
  'magicfrog.effectiveView': EffectiveViewArgs;
  'magicfrog.describe': DescribeArgs;
  'magicfrog.promote': PromoteArgs;
  'magicfrog.export': ExportArgs;
  'magicfrog.import': ImportArgs;
  'magicfrog.rollup': RollupArgs;
  'magicfrog.today': TodayArgs;
  'magicfrog.showEntry': ShowEntryArgs;
  'magicfrog.registerAgent': RegisterAgentArgs;
  'magicfrog.registerTask': RegisterTaskArgs;
  'magicfrog.resolveConflict': ResolveConflictArgs;
  'magicfrog.resolveOverwrite': ResolveOverwriteArgs;
  'magicfrog.sync': SyncArgs;
  'magicfrog.syncStatus': SyncStatusArgs;
  'magicfrog.syncResolve': SyncResolveArgs;
  'magicfrog.sessionInfo': SessionInfoArgs;
  'magicfrog.skillsInto': SkillsIntoArgs;
  'magicfrog.search': SearchArgs;
}

export type CommandName = keyof CommandArgs;
