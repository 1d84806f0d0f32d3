/**
 * A path from the server (plan files, checkpoint listings, staged files) as a file of the
 * editor's workspace: the folder the server names (`roots.ts`), then the URI VS Code knows
 * that folder by. The one place the extension turns a server path into a file.
 */

import * as fs from "node:fs";
import * as vscode from "vscode";
import { type Folder, type Located, NotInAFolder, locate } from "./roots";

/** Where the folder names come from: the running server (`AgentClient.folders`). */
export interface FolderSource {
  readonly running: boolean;
  folders(): Promise<Folder[]>;
}

export interface WorkspaceFile extends Located {
  /** The file, under the workspace folder's own URI when VS Code has the folder open. */
  uri: vscode.Uri;
}

function real(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** The folders the server named; without an answer from it, VS Code's folder when it has one. */
async function folders(source: FolderSource): Promise<Folder[]> {
  const named = await source.folders();
  if (named.length > 0) {
    return named;
  }
  const open = vscode.workspace.workspaceFolders ?? [];
  if (open.length === 1 && open[0].uri.scheme === "file") {
    return [{ name: "", path: open[0].uri.fsPath }];
  }
  if (open.length > 1) {
    const state = source.running ? "did not list its folders" : "is not running";
    throw new NotInAFolder(`the agent-ls server ${state}: cannot tell which of the ${open.length} workspace folders holds the file`);
  }
  return [];
}

/** The URI of `folder` as VS Code has it open (same path, or same real path), else its path. */
function folderUri(folder: Folder): vscode.Uri {
  const open = vscode.workspace.workspaceFolders ?? [];
  const same =
    open.find((f) => f.uri.scheme === "file" && f.uri.fsPath === folder.path) ??
    open.find((f) => f.uri.scheme === "file" && real(f.uri.fsPath) === real(folder.path));
  return same?.uri ?? vscode.Uri.file(folder.path);
}

/** The workspace file a server path names; throws NotInAFolder (naming the folders) when none. */
export async function workspaceFile(source: FolderSource, file: string): Promise<WorkspaceFile> {
  const located = locate(await folders(source), file);
  const parts = located.relative.split("/").filter(Boolean);
  return { ...located, uri: vscode.Uri.joinPath(folderUri(located.folder), ...parts) };
}
