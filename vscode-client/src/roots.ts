/**
 * Which workspace folder a path the server reports is in (the client side of
 * `actions/roots.py`). Pure: no `vscode` import, so the unit tests run it directly.
 *
 * With one folder the server's paths are relative to it (`src/app.ts`). With several, every
 * path starts with its folder's name (`frontend/src/app.ts`, `app@server/api.py`): the names
 * are the server's own (`agent/status` `folders`), never guessed here from VS Code's display
 * names or by matching a prefix of the path against folder paths.
 */

import { type FolderStatus } from "./protocol";

/** A workspace folder as the server names it ("" when it is the only one). */
export type Folder = Pick<FolderStatus, "name" | "path">;

/** A server path resolved: the folder it is in and the path inside it ("/"-separated). */
export interface Located {
  folder: Folder;
  relative: string;
}

export class NotInAFolder extends Error {}

/** The folders of an `agent/status` result (`[]` when it lists none or is malformed). */
export function parseFolders(raw: unknown): Folder[] {
  const folders = (raw as { folders?: unknown } | null)?.folders;
  if (!Array.isArray(folders)) {
    return [];
  }
  return folders
    .filter((f): f is Folder => typeof f?.name === "string" && typeof f?.path === "string" && f.path !== "")
    .map((f) => ({ name: f.name, path: f.path }));
}

/**
 * The folder of `file` (a path from a server payload: plan files, checkpoint listings, undo
 * results, staged files) and its path inside that folder. Throws NotInAFolder, naming the
 * folders, when no folder is known or the path names none of them.
 */
export function locate(folders: readonly Folder[], file: string): Located {
  const parts = file
    .replace(/\\/g, "/")
    .split("/")
    .filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) {
    throw new NotInAFolder(`${file}: a path with ".." is not in a workspace folder`);
  }
  if (folders.length === 0) {
    throw new NotInAFolder(`${file}: open a folder first (no workspace folder is known)`);
  }
  if (folders.length === 1) {
    return { folder: folders[0], relative: parts.join("/") };
  }
  const folder = folders.find((f) => f.name === parts[0]);
  if (!folder || parts.length < 2) {
    const names = folders.map((f) => f.name).join(", ");
    throw new NotInAFolder(`${file}: names no workspace folder (the folders are ${names})`);
  }
  return { folder, relative: parts.slice(1).join("/") };
}
