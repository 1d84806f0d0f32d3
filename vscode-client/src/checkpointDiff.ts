/**
 * "Diff against the checkpoint": the content a plan's file had before the plan, read from the
 * server's checkpoint store, shown in VS Code's diff editor against the file as it is now.
 *
 * The store (see `actions/checkpoints.py`) is a bare git directory at
 * `$AGENT_LS_CHECKPOINT_DIR/<key>` or `$XDG_CACHE_HOME/agent-ls/checkpoints/<key>` (default
 * `~/.cache/...`), key = first 20 hex digits of sha256(realpath of the workspace); each plan
 * is the commit `refs/checkpoints/<id>` whose tree holds `pre/<path>` and `post/<path>`, a
 * side absent when the file did not exist. The server runs with the extension host's
 * environment, so both compute the same directory. Reading is done with `git`.
 */

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export type Side = "pre" | "post";

/** The store directory of `workspace`, computed exactly as the server does. */
export function storeDir(workspace: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  const real = fs.realpathSync(workspace);
  let base: string;
  if (env.AGENT_LS_CHECKPOINT_DIR) {
    base = env.AGENT_LS_CHECKPOINT_DIR;
  } else {
    const cache = env.XDG_CACHE_HOME ?? "";
    base = path.join(path.isAbsolute(cache) ? cache : path.join(home, ".cache"), "agent-ls", "checkpoints");
  }
  const key = createHash("sha256").update(real, "utf8").digest("hex").slice(0, 20);
  return path.join(base, key);
}

export class CheckpointUnavailable extends Error {}

/**
 * The content of `file` (workspace-relative, "/"-separated) on one side of checkpoint `id`;
 * "" when the file did not exist on that side. Throws CheckpointUnavailable when the store or
 * the checkpoint is gone (pruned, another machine, a different cache directory).
 */
export async function readCheckpointFile(
  workspace: string,
  id: string,
  file: string,
  side: Side,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (!/^[A-Za-z0-9._-]+$/.test(id) || file.split("/").includes("..")) {
    throw new CheckpointUnavailable(`invalid checkpoint reference ${id}:${file}`);
  }
  const gitDir = path.join(storeDir(workspace, env), "git");
  const ref = `refs/checkpoints/${id}`;
  const git = (args: string[]) => run("git", ["--git-dir", gitDir, ...args], { maxBuffer: 64 * 2 ** 20 });
  try {
    await git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    throw new CheckpointUnavailable(`checkpoint ${id} is not in the store ${gitDir} (pruned?)`);
  }
  const object = `${ref}:${side}/${file}`;
  try {
    await git(["cat-file", "-e", object]);
  } catch {
    return ""; // no such side: the plan created (pre) or deleted (post) the file
  }
  const { stdout } = await git(["cat-file", "blob", object]);
  return stdout;
}
