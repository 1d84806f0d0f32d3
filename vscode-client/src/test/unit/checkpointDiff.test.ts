/**
 * Reading a file's content at a checkpoint from a store the real server code wrote: the
 * extension's store-directory rule must match actions/checkpoints.py exactly.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CheckpointUnavailable, readCheckpointFile, storeDir } from "../../checkpointDiff";

const temps: string[] = [];
const made = (dir: string): string => {
  temps.push(dir);
  return dir;
};
after(() => {
  for (const dir of temps) {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});


const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const PYTHON = process.env.AGENT_LS_PYTHON ?? path.join(REPO, ".venv", "bin", "python");

const MAKE_PLAN = `
import sys
from pathlib import Path
from actions.checkpoints import CheckpointStore
root = Path(sys.argv[1])
store = CheckpointStore(root)
plan = store.begin_plan(description="greeting", session_id="s1")
plan.write("src/app.py", b"print('v2')\\n")
plan.write("src/new.py", b"def greet():\\n    pass\\n")
plan.write("old.txt", None)
info = plan.commit()
print(info.id)
`;

function workspace(): { root: string; env: NodeJS.ProcessEnv } {
  const base = made(fs.mkdtempSync(path.join(os.tmpdir(), "agent-ls-cp-")));
  const root = path.join(base, "ws");
  fs.mkdirSync(path.join(root, "src"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "app.py"), "print('v1')\n");
  fs.writeFileSync(path.join(root, "old.txt"), "obsolete\n");
  // A symlinked path to the workspace: both sides must resolve it to the same key.
  fs.symlinkSync(root, path.join(base, "link"));
  return { root: path.join(base, "link"), env: { ...process.env, XDG_CACHE_HOME: path.join(base, "cache"), AGENT_LS_CHECKPOINT_DIR: "" } };
}

function makePlan(root: string, env: NodeJS.ProcessEnv): string {
  return execFileSync(PYTHON, ["-c", MAKE_PLAN, root], { cwd: REPO, env, encoding: "utf8" }).trim();
}

test("pre and post images of updated, created and deleted files", { skip: !fs.existsSync(PYTHON) && `no ${PYTHON}` }, async () => {
  const { root, env } = workspace();
  const id = makePlan(root, env);
  assert.ok(fs.existsSync(path.join(storeDir(root, env), "git")), "same store directory as the server");
  assert.equal(await readCheckpointFile(root, id, "src/app.py", "pre", env), "print('v1')\n");
  assert.equal(await readCheckpointFile(root, id, "src/app.py", "post", env), "print('v2')\n");
  assert.equal(await readCheckpointFile(root, id, "src/new.py", "pre", env), "", "created: no pre-image");
  assert.equal(await readCheckpointFile(root, id, "old.txt", "pre", env), "obsolete\n");
  assert.equal(await readCheckpointFile(root, id, "old.txt", "post", env), "", "deleted: no post-image");
});

test("an unknown checkpoint or a hostile reference is refused with a reason", { skip: !fs.existsSync(PYTHON) && `no ${PYTHON}` }, async () => {
  const { root, env } = workspace();
  makePlan(root, env);
  await assert.rejects(readCheckpointFile(root, "deadbeef", "src/app.py", "pre", env), CheckpointUnavailable);
  await assert.rejects(readCheckpointFile(root, "x;rm", "a", "pre", env), /invalid checkpoint reference/);
  await assert.rejects(readCheckpointFile(root, "abc", "../etc/passwd", "pre", env), /invalid checkpoint reference/);
});

test("AGENT_LS_CHECKPOINT_DIR wins over XDG_CACHE_HOME; a relative XDG_CACHE_HOME is ignored", () => {
  const { root } = workspace();
  const real = fs.realpathSync(root);
  const a = storeDir(root, { AGENT_LS_CHECKPOINT_DIR: "/stores", XDG_CACHE_HOME: "/cache" }, "/home/u");
  assert.equal(path.dirname(a), "/stores");
  assert.equal(path.basename(a).length, 20);
  assert.equal(storeDir(real, { XDG_CACHE_HOME: "/cache" }), path.join("/cache/agent-ls/checkpoints", path.basename(a)));
  assert.equal(path.dirname(storeDir(root, { XDG_CACHE_HOME: "rel" }, "/home/u")), "/home/u/.cache/agent-ls/checkpoints");
});
