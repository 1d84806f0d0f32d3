/**
 * Which workspace folder a server path is in: the names come from the real server code
 * (actions/roots.py `Roots.of`, the names `agent/status` reports), the paths from its
 * `qualified` (plan and checkpoint paths); `locate` must find the folder the server meant.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { type Folder, NotInAFolder, locate, parseFolders } from "../../roots";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const PYTHON = process.env.AGENT_LS_PYTHON ?? path.join(REPO, ".venv", "bin", "python");

/** The server's names of `roots` and its qualified form of `relative` in each folder. */
const SERVER_NAMES = `
import json, sys
from pathlib import Path
from actions.paths import Workspace, qualified
from actions.roots import Roots
roots = Roots.of([Workspace(Path(p)) for p in sys.argv[2:]])
relative = sys.argv[1]
print(json.dumps([
    {"name": r.name, "path": str(r.workspace.root), "qualified": qualified(r.name, relative)}
    for r in roots.roots
]))
`;

function serverFolders(relative: string, roots: string[]): (Folder & { qualified: string })[] {
  return JSON.parse(execFileSync(PYTHON, ["-c", SERVER_NAMES, relative, ...roots], { cwd: REPO, encoding: "utf8" })) as (Folder & {
    qualified: string;
  })[];
}

test("every folder's qualified path leads back to that folder, twins and nested names too", () => {
  const roots = ["/w/client/app", "/w/server/app", "/w/front", "/w/front/back", "/v/back"];
  const folders = serverFolders("src/app.ts", roots);
  assert.deepEqual(
    folders.map((f) => f.qualified),
    ["app@client/src/app.ts", "app@server/src/app.ts", "front/src/app.ts", "back@front/src/app.ts", "back@v/src/app.ts"],
  );
  for (const folder of folders) {
    const found = locate(folders, folder.qualified);
    assert.equal(found.folder.path, folder.path, folder.qualified);
    assert.equal(found.relative, "src/app.ts");
  }
});

test("a folder's name wins over a directory of that name inside another folder", () => {
  const folders = serverFolders("back/x.py", ["/w/front", "/w/back"]);
  assert.equal(folders[0].qualified, "front/back/x.py");
  assert.deepEqual(locate(folders, "front/back/x.py"), { folder: { name: "front", path: "/w/front", qualified: "front/back/x.py" }, relative: "back/x.py" });
  assert.equal(locate(folders, "back/x.py").folder.path, "/w/back");
});

test("one folder: paths are plain, relative to it, as before", () => {
  const [only] = serverFolders("front/src/app.ts", ["/w/front"]);
  assert.equal(only.name, "");
  assert.equal(only.qualified, "front/src/app.ts"); // a directory named like the folder stays a directory
  assert.deepEqual(locate([only], only.qualified), { folder: only, relative: "front/src/app.ts" });
  assert.equal(locate([only], "/src/app.ts").relative, "src/app.ts");
});

test("a path naming no folder, or none known, is refused with the folders named", () => {
  const folders: Folder[] = [
    { name: "front", path: "/w/front" },
    { name: "back", path: "/w/back" },
  ];
  assert.throws(() => locate(folders, "src/app.ts"), (e: Error) => e instanceof NotInAFolder && /names no workspace folder \(the folders are front, back\)/.test(e.message));
  assert.throws(() => locate(folders, "front"), NotInAFolder); // the folder itself is not a file
  assert.throws(() => locate(folders, "front/../back/x.py"), /"\.\."/);
  assert.throws(() => locate([], "src/app.ts"), /open a folder first/);
});

test("the folders of an agent/status result", () => {
  const status = {
    provider: "openai",
    folders: [
      { name: "front", path: "/w/front", applied: 1, undone: 0 },
      { name: 3, path: "/w/x" },
      { name: "back", path: "/w/back", applied: 0, undone: 1, index: { state: "ready" } },
    ],
  };
  assert.deepEqual(parseFolders(status), [
    { name: "front", path: "/w/front" },
    { name: "back", path: "/w/back" },
  ]);
  assert.deepEqual(parseFolders({ provider: "openai" }), []);
  assert.deepEqual(parseFolders(null), []);
});
