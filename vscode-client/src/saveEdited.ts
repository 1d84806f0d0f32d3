/**
 * Saving the open documents the server edited in the background.
 *
 * The server changes an open file twice: through `workspace/applyEdit` (the buffer) and then
 * atomically on disk. VS Code is left with a dirty editor whose text equals the disk, which
 * later shows up as "file is newer on disk". Measured: `workspace.saveAll()` does not save
 * such documents, `TextDocument.save()` per document does. We only save a document whose
 * text equals what is on disk, so the user's own unsaved typing is never written.
 */

import * as fs from "node:fs/promises";
import * as vscode from "vscode";

/** True when `text` is exactly the content of `file` on disk (false if it is unreadable). */
export async function sameAsDisk(file: string, text: string): Promise<boolean> {
  try {
    return (await fs.readFile(file, "utf8")) === text;
  } catch {
    return false;
  }
}

export class EditedDocuments {
  private readonly pending = new Set<string>();

  /** Remember the documents a workspace edit touched (text edits and renames). */
  noteEdit(uris: Iterable<string>): void {
    for (const uri of uris) {
      this.pending.add(uri);
    }
  }

  noteFiles(root: vscode.Uri, paths: Iterable<string>): void {
    for (const path of paths) {
      this.pending.add(vscode.Uri.joinPath(root, path).toString());
    }
  }

  /**
   * Save every remembered open document that is dirty with content equal to the disk.
   * A dirty one that differs stays remembered (the server may not have written the disk
   * yet); documents that are closed or clean are forgotten.
   */
  async flush(): Promise<string[]> {
    const saved: string[] = [];
    const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
    for (const key of [...this.pending]) {
      const doc = open.get(key);
      if (!doc || !doc.isDirty || doc.uri.scheme !== "file") {
        this.pending.delete(key);
        continue;
      }
      if ((await sameAsDisk(doc.uri.fsPath, doc.getText())) && (await doc.save())) {
        this.pending.delete(key);
        saved.push(vscode.workspace.asRelativePath(doc.uri));
      }
    }
    return saved;
  }
}
