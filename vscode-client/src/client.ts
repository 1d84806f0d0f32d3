/**
 * AgentClient owns the LanguageClient talking to `agent-ls` over stdio: start, stop,
 * restart, the custom requests (`agent/chat`, `agent/status`) and the commands
 * (undo / redo / checkpoints), and the saving of documents the server edited.
 */

import * as vscode from "vscode";
import {
  type ApplyWorkspaceEditParams,
  DidChangeConfigurationNotification,
  LSPErrorCodes,
  type Executable,
  LanguageClient,
  type LanguageClientOptions,
  MessageType,
  ResponseError,
  ShowMessageRequest,
  type ShowMessageRequestParams,
  State,
} from "vscode-languageclient/node";
import { chatCommandParams, wantsInstruction } from "./codeActions";
import { type ConsentChoice, parseConsent } from "./consent";
import {
  type ProgressEvent,
  parseChatResult,
  parseCheckpoints,
  parseProgress,
  parseReviewPlan,
  parseStagedContent,
  parseUndoResult,
} from "./payloads";
import {
  AGENT_CHAT,
  AGENT_CHAT_PROGRESS,
  AGENT_STATUS,
  type AcceptParams,
  CMD_ACCEPT,
  CMD_CHAT,
  CMD_CHECKPOINTS,
  CMD_REDO,
  CMD_REJECT,
  CMD_STAGED_CONTENT,
  CMD_UNDO,
  CONFIG_SECTION,
  type ChatParams,
  type ChatResult,
  type CheckpointEntry,
  type ConsentPrompt,
  type RejectParams,
  type ReviewPlan,
  type StagedContent,
  type StagedContentParams,
  type UndoResult,
} from "./protocol";
import { type Folder, parseFolders } from "./roots";
import { EditedDocuments } from "./saveEdited";
import { resolveServerPath } from "./serverPath";
import type { ProviderStatus } from "./statusText";

export class TurnCancelled extends Error {}

/** What starts the server: `agentLs.serverPath` and `agentLs.serverArgs` as the settings say now. */
function launchSettings(): { path: string; args: string[] } {
  const settings = vscode.workspace.getConfiguration(CONFIG_SECTION);
  return { path: settings.get<string>("serverPath", "agent-ls"), args: settings.get<string[]>("serverArgs", []) };
}

export interface ServerStatus extends ProviderStatus {
  reason?: string;
}

/** What the extension does for the server's code actions (set by the wiring). */
export interface ClientHooks {
  /** Run an `agent.chat` command (Explain) in the chat panel. */
  chatCommand?: (params: ChatParams) => Promise<unknown>;
  /** Ask "Rewrite how?"; undefined when the user dismissed the box. */
  askInstruction?: (title: string) => Promise<string | undefined>;
  /** Ask to run a model's command (a card in the chat panel); undefined is Deny. */
  consent?: (prompt: ConsentPrompt, token: vscode.CancellationToken) => Promise<ConsentChoice | undefined>;
}

/** What vscode-languageclient does for a message request: a toast with the actions. */
function toast(params: ShowMessageRequestParams): Thenable<{ title: string } | undefined> {
  const actions = params.actions ?? [];
  switch (params.type) {
    case MessageType.Error:
      return vscode.window.showErrorMessage(params.message, ...actions);
    case MessageType.Warning:
      return vscode.window.showWarningMessage(params.message, ...actions);
    default:
      return vscode.window.showInformationMessage(params.message, ...actions);
  }
}

/** The URIs a workspace edit changes (the documents VS Code will leave dirty). */
export function editedUris(params: ApplyWorkspaceEditParams): string[] {
  const uris = new Set<string>(Object.keys(params.edit.changes ?? {}));
  for (const change of params.edit.documentChanges ?? []) {
    if ("textDocument" in change) {
      uris.add(change.textDocument.uri);
    }
  }
  return [...uris];
}

/** A JSON-RPC error's message as the user should read it. */
export function errorMessage(error: unknown): string {
  if (error instanceof ResponseError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}

export class AgentClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly progressEmitter = new vscode.EventEmitter<ProgressEvent>();
  private readonly runningEmitter = new vscode.EventEmitter<boolean>();
  private readonly reviewedEmitter = new vscode.EventEmitter<ReviewPlan>();
  private readonly edited = new EditedDocuments();
  private flushTimer: NodeJS.Timeout | undefined;
  readonly onProgress = this.progressEmitter.event;
  readonly onDidChangeRunning = this.runningEmitter.event;
  /** A review decision went through (from the panel or from a code action's command). */
  readonly onReviewed = this.reviewedEmitter.event;
  /** Why the last start failed (a wrong agentLs.serverPath...); undefined once one succeeds. */
  startError: string | undefined;
  readonly hooks: ClientHooks = {};
  /** The workspace folders as the server last named them (`agent/status`). */
  private knownFolders: Folder[] = [];
  /** serverPath and serverArgs of the last start (JSON), to tell whether a change needs a restart. */
  private launched = "";
  /** The start or restart in progress, if any. */
  private starting: Promise<void> | undefined;

  constructor(private readonly output: vscode.LogOutputChannel) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  async start(): Promise<void> {
    await this.transition(() => this.launchNoted());
  }

  private async launchNoted(): Promise<void> {
    this.startError = undefined;
    try {
      await this.launch();
    } catch (error) {
      this.startError = errorMessage(error);
      throw error;
    }
  }

  /** A start or restart; requests made meanwhile wait for it (`ready`) instead of failing. */
  private async transition(body: () => Promise<void>): Promise<void> {
    const run = body();
    this.starting = run;
    try {
      await run;
    } finally {
      if (this.starting === run) {
        this.starting = undefined;
      }
    }
  }

  /**
   * Whether serverPath / serverArgs now differ from the last start's: they change with the
   * settings and with Workspace Trust (a workspace's own values apply only once it is trusted).
   */
  launchChanged(): boolean {
    return JSON.stringify(launchSettings()) !== this.launched;
  }

  /** Tell the server its settings may have changed: it pulls `agentLs` (and each folder's) again. */
  async settingsChanged(): Promise<void> {
    if (this.client && this.running) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
    }
  }

  private async launch(): Promise<void> {
    const wanted = launchSettings();
    this.launched = JSON.stringify(wanted);
    const server: Executable = { command: resolveServerPath(wanted.path), args: wanted.args };
    const options: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
      synchronize: { configurationSection: CONFIG_SECTION },
      outputChannel: this.output,
      middleware: {
        workspace: {
          handleApplyEdit: async (params, next) => {
            this.edited.noteEdit(editedUris(params));
            const result = await next(params, new vscode.CancellationTokenSource().token);
            this.scheduleFlush();
            return result;
          },
        },
        executeCommand: async (command, args, next) => {
          const params = command === CMD_CHAT ? chatCommandParams(args) : undefined;
          if (params && this.hooks.chatCommand) {
            return this.hooks.chatCommand(params);
          }
          const result: unknown = await next(command, args);
          if (command === CMD_ACCEPT || command === CMD_REJECT) {
            try {
              this.noteReview(result); // an Accept / Reject code action: the panel's badges follow
            } catch (error) {
              this.output.warn(`${command}: ${errorMessage(error)}`);
            }
          }
          return result;
        },
        resolveCodeAction: async (item, token, next) => {
          const data: unknown = (item as { data?: unknown }).data;
          if (wantsInstruction(data) && this.hooks.askInstruction) {
            const instruction = await this.hooks.askInstruction(item.title);
            if (instruction === undefined) {
              return item; // dismissed: nothing is run, nothing changes
            }
            data.instruction = instruction;
          }
          const resolved = await next(item, token);
          await this.flushEdits();
          return resolved;
        },
      },
    };
    const client = new LanguageClient("agentLs", "agent-ls", server, options);
    client.onDidChangeState(() => this.runningEmitter.fire(this.running));
    client.onRequest(ShowMessageRequest.type, async (params, token) => {
      const consent = parseConsent(params);
      if (!consent || !this.hooks.consent) {
        return (await toast(params)) ?? null;
      }
      const choice = await this.hooks.consent(consent, token);
      return choice ? { title: choice } : null;
    });
    client.onNotification(AGENT_CHAT_PROGRESS, (raw: unknown) => {
      const event = parseProgress(raw);
      if (event) {
        this.progressEmitter.fire(event);
      }
    });
    this.client = client;
    await client.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning()) {
      await client.stop();
    }
    this.runningEmitter.fire(false);
  }

  async restart(): Promise<void> {
    await this.transition(async () => {
      await this.stop();
      await this.launchNoted();
    });
  }

  /** The client once a start in progress (e.g. the restart after trusting the workspace) is done. */
  private async ready(): Promise<LanguageClient> {
    await this.starting?.catch(() => undefined); // its failure is reported where it was started
    return this.require();
  }

  private require(): LanguageClient {
    if (!this.client || !this.running) {
      throw new Error("the agent-ls server is not running (Agent: Restart Server starts it)");
    }
    return this.client;
  }

  /** One chat turn. Cancelling `token` sends $/cancelRequest; the promise then rejects with TurnCancelled. */
  async chat(params: ChatParams, token: vscode.CancellationToken): Promise<ChatResult> {
    const client = await this.ready();
    try {
      const raw: unknown = await client.sendRequest(AGENT_CHAT, params, token);
      return parseChatResult(raw);
    } catch (error) {
      if (token.isCancellationRequested || (error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled)) {
        throw new TurnCancelled("stopped");
      }
      throw error;
    } finally {
      await this.flushEdits();
    }
  }

  async undo(force = false): Promise<UndoResult> {
    return this.move(CMD_UNDO, force);
  }

  async redo(force = false): Promise<UndoResult> {
    return this.move(CMD_REDO, force);
  }

  private async move(command: string, force: boolean): Promise<UndoResult> {
    const client = await this.ready();
    try {
      const raw: unknown = await client.sendRequest("workspace/executeCommand", {
        command,
        arguments: force ? [{ force: true }] : [],
      });
      return parseUndoResult(raw);
    } finally {
      await this.flushEdits();
    }
  }

  /** `agent.accept`: apply the listed (default: all pending) staged files as one checkpoint. */
  async accept(params: AcceptParams): Promise<ReviewPlan> {
    try {
      return this.noteReview(await this.command(CMD_ACCEPT, [params]));
    } finally {
      await this.flushEdits();
    }
  }

  /** `agent.reject`: discard the listed (default: all pending) staged files; the reason goes to the model. */
  async reject(params: RejectParams): Promise<ReviewPlan> {
    return this.noteReview(await this.command(CMD_REJECT, [params]));
  }

  /** `agent.stagedContent`: what a pending plan would write to one file. */
  async stagedContent(params: StagedContentParams): Promise<StagedContent> {
    return parseStagedContent(await this.command(CMD_STAGED_CONTENT, [params]));
  }

  private async command(command: string, args: unknown[]): Promise<unknown> {
    return (await this.ready()).sendRequest("workspace/executeCommand", { command, arguments: args });
  }

  private noteReview(raw: unknown): ReviewPlan {
    const plan = parseReviewPlan(raw);
    this.reviewedEmitter.fire(plan);
    return plan;
  }

  async checkpoints(): Promise<CheckpointEntry[]> {
    const raw: unknown = await (await this.ready()).sendRequest("workspace/executeCommand", {
      command: CMD_CHECKPOINTS,
      arguments: [],
    });
    return parseCheckpoints(raw);
  }

  /** `agent/status` (without its test request), else the provider and model from the settings. */
  async status(): Promise<ServerStatus> {
    const settings = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const fallback: ServerStatus = {
      provider: settings.get<string | null>("provider") ?? process.env.AGENT_LS_PROVIDER ?? "openai",
      model: settings.get<string | null>("model") ?? process.env.AGENT_LS_MODEL ?? "default",
    };
    if (!this.running || !this.client) {
      return fallback;
    }
    try {
      const raw = (await this.client.sendRequest(AGENT_STATUS, { check: false })) as Record<string, unknown> | null;
      this.knownFolders = parseFolders(raw);
      return {
        provider: typeof raw?.provider === "string" ? raw.provider : fallback.provider,
        model: typeof raw?.model === "string" ? raw.model : fallback.model,
        reason: typeof raw?.reason === "string" ? raw.reason : undefined,
      };
    } catch (error) {
      this.output.warn(`agent/status failed: ${errorMessage(error)}`);
      return fallback;
    }
  }

  /**
   * The workspace folders with the names the server qualifies paths by, asked afresh (folders
   * come and go); the last answer when the server cannot answer now; [] when it never did.
   */
  async folders(): Promise<Folder[]> {
    if (this.running && this.client) {
      try {
        this.knownFolders = parseFolders(await this.client.sendRequest(AGENT_STATUS, { check: false }));
      } catch (error) {
        this.output.warn(`agent/status failed: ${errorMessage(error)}`);
      }
    }
    return this.knownFolders;
  }

  private scheduleFlush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = setTimeout(() => {
      this.flushEdits().catch((error: unknown) => this.output.error(`save failed: ${errorMessage(error)}`));
    }, 500);
  }

  /** Save the server-edited documents now (after a turn, an undo, a redo). */
  async flushEdits(): Promise<string[]> {
    clearTimeout(this.flushTimer);
    return this.edited.flush();
  }

  dispose(): void {
    clearTimeout(this.flushTimer);
    void this.stop();
    this.progressEmitter.dispose();
    this.runningEmitter.dispose();
    this.reviewedEmitter.dispose();
  }
}
