/**
 * The chat panel: a WebviewView in the activity bar. It turns the webview's messages into
 * agent-ls requests (chat, stop, undo, redo, diff) and streams progress back to it.
 */

import * as vscode from "vscode";
import { AgentClient, TurnCancelled, errorMessage } from "./client";
import { CHAT_VIEW_ID, CHECKPOINT_SCHEME, STAGED_SCHEME } from "./constants";
import { ConsentBroker, type ConsentChoice } from "./consent";
import { chatHtml, nonce } from "./html";
import { type HostMessage, parseViewMessage } from "./messages";
import type { ChatContext, ConsentPrompt, ReviewPlan, UndoResult } from "./protocol";
import { showStagedDiff } from "./stagedDiff";
import { workspaceFile } from "./workspaceFiles";

/** What the active editor shows: its URI, and the selection when there is one. */
export function editorContext(editor: vscode.TextEditor | undefined): ChatContext | undefined {
  const scheme = editor?.document.uri.scheme;
  if (!editor || scheme === CHECKPOINT_SCHEME || scheme === STAGED_SCHEME) {
    return undefined;
  }
  const context: ChatContext = { uri: editor.document.uri.toString() };
  const selection = editor.selection;
  if (!selection.isEmpty) {
    context.range = {
      start: { line: selection.start.line, character: selection.start.character },
      end: { line: selection.end.line, character: selection.end.character },
    };
    context.selectionText = editor.document.getText(selection);
  }
  return context;
}

export function describeMove(kind: "Undo" | "Redo", result: UndoResult): string {
  const files = result.files.map((f) => (f.exists ? f.path : `${f.path} (deleted)`)).join(", ");
  const forced = result.overridden.length ? ` — overwrote your changes to ${result.overridden.join(", ")}` : "";
  return `${kind} of ${result.checkpointId}: ${files || "no files"}${forced}`;
}

/** What an Accept / Reject did, in one line for the panel. */
export function describeReview(plan: ReviewPlan): string {
  const count = (state: string) => plan.files.filter((f) => f.state === state).length;
  const parts = [`${count("accepted")} accepted`, `${count("rejected")} rejected`, `${count("pending")} pending`];
  const checkpoint = plan.checkpointId ? ` — checkpoint ${plan.checkpointId}` : "";
  return `Plan ${plan.description || plan.planId}: ${parts.join(", ")}${checkpoint}`;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready: Promise<void> = Promise.resolve();
  private markReady: () => void = () => undefined;
  private turn: vscode.CancellationTokenSource | undefined;
  private readonly consents = new ConsentBroker();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: AgentClient,
    private readonly onBusy: (busy: boolean) => void,
  ) {
    this.disposables.push(client.onReviewed((plan) => this.post({ type: "reviewed", plan })));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = new Promise((resolve) => {
      this.markReady = resolve;
    });
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js")).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.css")).toString(),
      nonce: nonce(),
    });
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw: unknown) => {
        this.handle(raw).catch((error: unknown) => this.notice("error", errorMessage(error)));
      }),
      view.onDidChangeVisibility(() => {
        if (!view.visible) {
          this.denyConsents(); // the panel was closed: nobody can click the card
        }
      }),
      view.onDidDispose(() => {
        this.view = undefined;
        this.denyConsents();
      }),
    );
  }

  post(message: HostMessage): void {
    void this.view?.webview.postMessage(message);
  }

  notice(level: "info" | "error", text: string): void {
    this.post({ type: "notice", level, text });
  }

  get busy(): boolean {
    return this.turn !== undefined;
  }

  private async handle(raw: unknown): Promise<void> {
    const message = parseViewMessage(raw);
    switch (message?.type) {
      case "ready":
        this.markReady();
        await this.postStatus();
        return;
      case "send":
        return this.send(message.text, message.sessionId);
      case "stop":
        // Cancel first: the server must see the stop before the Deny, or it would tell the
        // model "denied" and ask it once more while the turn is being stopped.
        this.turn?.cancel();
        this.denyConsents();
        return;
      case "consentAnswer":
        return this.closeConsent(message.id, message.choice);
      case "undo":
        return this.move("Undo");
      case "redo":
        return this.move("Redo");
      case "openDiff":
        await vscode.commands.executeCommand("agentLs.showCheckpointDiff", message.checkpointId, message.path);
        return;
      case "openFile":
        return this.openFile(message.path);
      case "openStagedDiff":
        return showStagedDiff(this.client, message.planId, message.path);
      case "accept":
        return this.accept(message.planId, message.files);
      case "reject":
        return this.reject(message.planId, message.files);
      default:
        return;
    }
  }

  async postStatus(): Promise<void> {
    const status = await this.client.status();
    const error = this.client.startError;
    this.post({ type: "status", ...status, serverRunning: this.client.running, ...(error ? { error } : {}) });
  }

  /** Reveal the panel and wait (at most 10 s) until its page listens. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    await Promise.race([this.ready, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }

  /**
   * Run one chat turn, streaming its progress into the panel. The context is the active
   * editor's file and selection unless one is given (a code action's).
   */
  async send(text: string, sessionId?: string, given?: ChatContext): Promise<void> {
    if (this.turn) {
      this.notice("error", "A turn is already running: Stop it first.");
      return;
    }
    const context = given ?? editorContext(vscode.window.activeTextEditor);
    const turn = new vscode.CancellationTokenSource();
    this.turn = turn;
    this.onBusy(true);
    const forward = this.client.onProgress((event) => this.post({ type: "progress", event }));
    this.post({ type: "turnStarted", message: text, context });
    try {
      const result = await this.client.chat({ message: text, sessionId, context }, turn.token);
      this.post({ type: "turnEnded", result });
    } catch (error) {
      if (error instanceof TurnCancelled) {
        this.post({ type: "turnEnded", cancelled: true });
      } else {
        this.post({ type: "turnEnded", error: errorMessage(error) });
      }
    } finally {
      this.denyConsents();
      forward.dispose();
      turn.dispose();
      this.turn = undefined;
      this.onBusy(false);
    }
  }

  /**
   * The server asks consent (a command, an MCP tool call, a `.mcp.json`): a card in the panel
   * (revealed if need be) answered by its buttons; Deny (undefined) when the panel closes,
   * the turn stops or `token` fires.
   */
  async askConsent(prompt: ConsentPrompt, token: vscode.CancellationToken): Promise<ConsentChoice | undefined> {
    if (!this.view?.visible) {
      await this.reveal();
    }
    if (!this.view || token.isCancellationRequested) {
      return undefined;
    }
    const { id, answer } = this.consents.open();
    const withdrawn = token.onCancellationRequested(() => this.closeConsent(id, undefined));
    this.post({ type: "consent", id, prompt });
    try {
      return await answer;
    } finally {
      withdrawn.dispose();
    }
  }

  private closeConsent(id: string, choice: ConsentChoice | undefined): void {
    if (this.consents.answer(id, choice)) {
      this.post(choice ? { type: "consentClosed", id, choice } : { type: "consentClosed", id });
    }
  }

  private denyConsents(): void {
    for (const id of this.consents.denyAll()) {
      this.post({ type: "consentClosed", id });
    }
  }

  /** Undo or redo; on a conflict, ask before forcing it over the user's changes. */
  async move(kind: "Undo" | "Redo", force = false): Promise<void> {
    const run = (f: boolean) => (kind === "Undo" ? this.client.undo(f) : this.client.redo(f));
    try {
      const result = await run(force);
      this.post({ type: "moved", undo: kind === "Undo", result });
      this.notice("info", describeMove(kind, result));
    } catch (error) {
      const text = errorMessage(error);
      this.notice("error", `${kind} failed: ${text}`);
      if (!force && /conflict|changed since/i.test(text)) {
        const choice = await vscode.window.showWarningMessage(
          `${kind} failed: ${text}`,
          { modal: true },
          `${kind} anyway`,
        );
        if (choice) {
          await this.move(kind, true);
        }
      }
    }
  }

  /** Accept the files (default: every pending one); files changed since staging are named. */
  async accept(planId: string, files?: string[]): Promise<void> {
    try {
      const plan = await this.client.accept(files ? { planId, files } : { planId });
      if (plan.refused?.length) {
        this.notice("error", `Not accepted: ${plan.refused.join("; ")}`);
      }
      this.notice("info", describeReview(plan));
    } catch (error) {
      this.notice("error", `Accept failed: ${errorMessage(error)}`);
    }
  }

  /** Reject the files after asking why (optional; the model reads it). Escape cancels. */
  async reject(planId: string, files?: string[]): Promise<void> {
    const what = files ? files.join(", ") : "all pending files of the plan";
    const reason = await vscode.window.showInputBox({
      title: `Reject ${what}`,
      prompt: "Why? (optional: the agent reads it with your next message; Escape cancels)",
      placeHolder: "e.g. keep the print statement",
    });
    if (reason === undefined) {
      return;
    }
    try {
      const params = { planId, ...(files ? { files } : {}), ...(reason.trim() ? { reason: reason.trim() } : {}) };
      this.notice("info", describeReview(await this.client.reject(params)));
    } catch (error) {
      this.notice("error", `Reject failed: ${errorMessage(error)}`);
    }
  }

  /** Open a file the server named (in a multi-root workspace: `<folder>/<path>`). */
  private async openFile(path: string): Promise<void> {
    const file = await workspaceFile(this.client, path);
    await vscode.window.showTextDocument(file.uri);
  }

  dispose(): void {
    this.denyConsents();
    this.turn?.cancel();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
