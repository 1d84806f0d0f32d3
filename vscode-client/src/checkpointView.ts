/**
 * Checkpoints in VS Code: a read-only document scheme for a file's content at a checkpoint,
 * the diff command the panel's plan rows open, and the "Agent: Checkpoints" picker.
 */

import * as vscode from "vscode";
import { CheckpointUnavailable, type Side, readCheckpointFile } from "./checkpointDiff";
import type { AgentClient } from "./client";
import { errorMessage } from "./client";
import { CHECKPOINT_SCHEME } from "./constants";
import { NotInAFolder } from "./roots";
import { type FolderSource, workspaceFile } from "./workspaceFiles";

/**
 * `agent-ls-checkpoint:/<path>?id=<checkpoint>&side=pre|post`; `<path>` as the server lists it
 * (folder-qualified in a multi-root workspace: each folder keeps its own store).
 */
export function checkpointUri(id: string, file: string, side: Side): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${file}`, query: `id=${id}&side=${side}` });
}

export class CheckpointContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly folders: FolderSource) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const side: Side = query.get("side") === "post" ? "post" : "pre";
    try {
      const file = await workspaceFile(this.folders, uri.path.slice(1));
      return await readCheckpointFile(file.folder.path, query.get("id") ?? "", file.relative, side);
    } catch (error) {
      if (error instanceof CheckpointUnavailable || error instanceof NotInAFolder) {
        void vscode.window.showWarningMessage(error.message);
      }
      throw error;
    }
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

/** Diff: the file before checkpoint `id` (left) against the file as it is now (right). */
export async function showCheckpointDiff(folders: FolderSource, id: string, file: string): Promise<void> {
  const current = (await workspaceFile(folders, file)).uri;
  const right = (await exists(current)) ? current : checkpointUri(id, file, "post");
  await vscode.commands.executeCommand(
    "vscode.diff",
    checkpointUri(id, file, "pre"),
    right,
    `${file} (before ${id.slice(0, 8)} ↔ now)`,
  );
}

/** "Agent: Checkpoints": pick a checkpoint, then one of its files to diff. */
export async function pickCheckpoint(client: AgentClient): Promise<void> {
  let checkpoints;
  try {
    checkpoints = await client.checkpoints();
  } catch (error) {
    void vscode.window.showErrorMessage(`agent-ls checkpoints: ${errorMessage(error)}`);
    return;
  }
  if (checkpoints.length === 0) {
    void vscode.window.showInformationMessage("agent-ls: no checkpoints yet (a plan makes one).");
    return;
  }
  const picked = await vscode.window.showQuickPick(
    checkpoints.map((c) => ({
      label: c.description || c.id,
      description: `${c.state} · ${c.time}`,
      detail: c.files.join(", "),
      checkpoint: c,
    })),
    { title: "agent-ls checkpoints (newest last)", placeHolder: "Pick a checkpoint to see its files" },
  );
  if (!picked) {
    return;
  }
  const file = await vscode.window.showQuickPick(picked.checkpoint.files, { title: "Diff which file?" });
  if (file) {
    await showCheckpointDiff(client, picked.checkpoint.id, file).catch((error: unknown) =>
      vscode.window.showErrorMessage(`agent-ls: ${errorMessage(error)}`),
    );
  }
}
