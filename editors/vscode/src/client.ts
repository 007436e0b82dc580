// The language client: finding and starting mf-lsp, restarting it, and running its
// commands. One MemoryClient lives as long as the extension; its LanguageClient is
// replaced on each restart.
import * as os from 'os';
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
import { PathContext, SECTION, configuredAgents, documentSelector, initializationOptions } from './config';
import { message } from './labels';
import { Commands, CompareNotification, CompareParams, MemoryChangedNotification, MemoryChangedParams, SessionInfo, severalAgentsChoices } from './protocol';
import { INSTALL_COMMAND, findServer } from './server';

export function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

/** The first workspace folder and the home directory, for path settings. */
export function pathContext(): PathContext {
  return { folder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, home: os.homedir() };
}

export class MemoryClient implements vscode.Disposable {
  /** Fired on magicfrog/memoryChanged, after a start, and after a write the extension made. */
  readonly memoryChanged = new vscode.EventEmitter<MemoryChangedParams>();
  /** Fired on magicfrog/compare: a save conflict's disk version to show beside the buffer. */
  readonly compare = new vscode.EventEmitter<CompareParams>();
  private client: LanguageClient | undefined;
  private startError: string | undefined;

  constructor(readonly output: vscode.LogOutputChannel) {}

  /** Whether a language client exists (started, or starting). */
  get running(): boolean {
    return this.client !== undefined;
  }

  dispose(): void {
    this.memoryChanged.dispose();
    this.compare.dispose();
  }

  async start(): Promise<void> {
    const found = findServer(settings().get<string>('serverPath') ?? '', { ...pathContext(), env: process.env, platform: process.platform });
    if (!found.ok) {
      this.startError = found.message;
      this.output.appendLine(found.message);
      const copy = 'Copy Install Command';
      const open = 'Open Settings';
      void vscode.window.showErrorMessage(found.message, copy, open).then(async (choice) => {
        if (choice === copy) {
          await vscode.env.clipboard.writeText(INSTALL_COMMAND);
          void vscode.window.showInformationMessage(`Copied: ${INSTALL_COMMAND}`);
        } else if (choice === open) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'magicfrog.serverPath');
        }
      });
      return;
    }
    this.startError = undefined;
    this.output.appendLine(`Starting ${found.command} (from ${found.source})`);
    const serverOptions: ServerOptions = { command: found.command, args: [], transport: TransportKind.stdio };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(),
      initializationOptions: initializationOptions(settings(), pathContext()),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
    };
    const c = new LanguageClient(SECTION, 'MagicFrog Memory', serverOptions, clientOptions);
    // mf-lsp sends its own notifications only to a client that opts in (docs/protocol.md).
    c.registerFeature({
      fillClientCapabilities(caps) {
        caps.experimental = { ...(caps.experimental ?? {}), magicfrog: { notifications: [MemoryChangedNotification, CompareNotification] } };
      },
      initialize() {},
      getState: () => ({ kind: 'static' }),
      clear() {},
    });
    c.onNotification(MemoryChangedNotification, (params: MemoryChangedParams) => this.memoryChanged.fire(params ?? {}));
    c.onNotification(CompareNotification, (params: CompareParams) => this.compare.fire(params));
    this.client = c;
    try {
      await c.start();
      this.memoryChanged.fire({});
    } catch (e) {
      this.startError = `MagicFrog: the language server failed to start: ${message(e)}`;
      this.output.appendLine(this.startError);
      void vscode.window.showErrorMessage(this.startError, 'Show Output').then((choice) => {
        if (choice) {
          this.output.show();
        }
      });
    }
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      try {
        await c.dispose(2000);
      } catch (e) {
        this.output.appendLine(`Stopping the server: ${message(e)}`);
      }
    }
  }

  /** Set while a restart runs: commands wait for the new server. */
  private restarting: Promise<void> | undefined;

  async restart(): Promise<void> {
    const r = (async () => {
      await this.stop();
      await this.start();
    })();
    this.restarting = r;
    try {
      await r;
    } finally {
      if (this.restarting === r) {
        this.restarting = undefined;
      }
    }
  }

  /**
   * Runs one of the server's commands; every argument is one object (docs/protocol.md).
   * A refusal with data.code "several-agents" (the project names several agents and
   * none is chosen) asks which agent, stores it as the workspace's
   * magicfrog.participant (which restarts the server with it) and runs the command
   * again for that agent.
   */
  async execute<T>(command: string, arg: object): Promise<T> {
    try {
      return await this.send<T>(command, arg);
    } catch (e) {
      const choices = severalAgentsChoices(e);
      if (!choices) {
        throw e;
      }
      const picked = await this.askParticipant(choices);
      if (!picked) {
        throw e;
      }
      return this.send<T>(command, { ...arg, participant: picked });
    }
  }

  /** The question being asked: commands refused meanwhile wait for its answer. */
  private asking: Promise<string | undefined> | undefined;

  /** Which agent, among the server's choices; remembered for the workspace. Asked once at a time. */
  private askParticipant(choices: string[]): Promise<string | undefined> {
    if (!this.asking) {
      this.asking = this.ask(choices).finally(() => {
        this.asking = undefined;
      });
    }
    return this.asking;
  }

  private async ask(choices: string[]): Promise<string | undefined> {
    const picked = await vscode.window.showQuickPick(choices, {
      title: 'MagicFrog: which agent is this workspace?',
      placeHolder: 'The project names several agents; memory is answered for one (remembered in this workspace\'s settings)',
      ignoreFocusOut: true,
    });
    if (!picked) {
      return undefined;
    }
    this.output.appendLine(`Participant: ${picked} (workspace setting magicfrog.participant).`);
    await settings().update('participant', picked, vscode.ConfigurationTarget.Workspace);
    return picked;
  }

  private async send<T>(command: string, arg: object): Promise<T> {
    if (this.restarting) {
      await this.restarting;
    }
    const c = this.client;
    if (!c) {
      throw new Error(this.startError ?? 'MagicFrog: the language server is not running.');
    }
    if (c.state !== State.Running) {
      await c.start();
    }
    return (await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] })) as T;
  }

  /** What the server loaded (project, data directory, scope); undefined when it cannot say. */
  async sessionInfo(): Promise<SessionInfo | undefined> {
    try {
      return await this.execute<SessionInfo>(Commands.sessionInfo, {});
    } catch (e) {
      this.output.warn(`magicfrog.sessionInfo: ${message(e)}`);
      return undefined;
    }
  }

  /** The agents in scope, as the server loaded them (the settings' while it cannot say). */
  async agents(): Promise<string[]> {
    const info = await this.sessionInfo();
    return info ? (info.agents ?? []).filter((a) => a) : configuredAgents(settings());
  }
}
