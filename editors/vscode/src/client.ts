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
import { PathContext, SECTION, configuredAgents, initializationOptions } from './config';
import { message } from './labels';
import { Commands, CompareNotification, CompareParams, MemoryChangedNotification, MemoryChangedParams, SessionInfo } from './protocol';
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
      // Every Markdown file on disk goes to the server; it decides what is memory.
      documentSelector: [{ scheme: 'file', language: 'markdown' }],
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

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Runs one of the server's commands; every argument is one object (docs/protocol.md). */
  async execute<T>(command: string, arg: object): Promise<T> {
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
