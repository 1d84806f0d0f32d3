/**
 * Review mode's diff: a staged file as it is now (left) against what the pending plan would
 * write (right). The proposed content is not on disk: a read-only document scheme asks the
 * server for it (`agent.stagedContent`).
 */

import * as vscode from "vscode";
import type { AgentClient } from "./client";
import { STAGED_SCHEME } from "./constants";
import { type FolderSource, workspaceFile } from "./workspaceFiles";

/** `agent-ls-staged:/<path>?plan=<planId>` (`&side=none`: an empty document, for a new file). */
export function stagedUri(planId: string, file: string, empty = false): vscode.Uri {
  const query = new URLSearchParams({ plan: planId, ...(empty ? { side: "none" } : {}) });
  return vscode.Uri.from({ scheme: STAGED_SCHEME, path: `/${file}`, query: query.toString() });
}

export class StagedContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly client: AgentClient) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    if (query.get("side") === "none") {
      return "";
    }
    const staged = await this.client.stagedContent({ planId: query.get("plan") ?? "", path: uri.path.slice(1) });
    return staged.content ?? ""; // absent: the plan deletes the file
  }
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/**
 * Diff: the file now (left; empty when the plan creates it) against the plan's proposal.
 * `file` is the plan's name of it (folder-qualified in a multi-root workspace).
 */
export async function showStagedDiff(folders: FolderSource, planId: string, file: string): Promise<void> {
  const current = (await workspaceFile(folders, file)).uri;
  const left = (await exists(current)) ? current : stagedUri(planId, file, true);
  await vscode.commands.executeCommand("vscode.diff", left, stagedUri(planId, file), `${file} (now ↔ proposed)`);
}
