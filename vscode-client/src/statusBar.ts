/** The status-bar item: the provider in use, a spinner while a turn runs, a click opens the chat. */

import * as vscode from "vscode";
import type { ServerStatus } from "./client";
import { VSCODE_COMMANDS } from "./constants";
import { statusText } from "./statusText";

export class AgentStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private status: ServerStatus | undefined;
  private running = false;
  private busy = false;

  constructor() {
    this.item.name = "agent-ls";
    this.item.command = VSCODE_COMMANDS.chat;
    this.render();
    this.item.show();
  }

  update(change: { status?: ServerStatus; running?: boolean; busy?: boolean }): void {
    this.status = change.status ?? this.status;
    this.running = change.running ?? this.running;
    this.busy = change.busy ?? this.busy;
    this.render();
  }

  private render(): void {
    this.item.text = statusText(this.status, this.running, this.busy);
    const reason = this.status?.reason ? ` — ${this.status.reason}` : "";
    this.item.tooltip = `agent-ls${reason}. Click to open the chat.`;
  }

  dispose(): void {
    this.item.dispose();
  }
}
