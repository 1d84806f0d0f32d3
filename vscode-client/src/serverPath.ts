/**
 * Finding the `agent-ls` executable from the `agentLs.serverPath` setting, with a message
 * that tells the user what to do when it is missing.
 */

import * as fs from "node:fs";
import * as path from "node:path";

export class ServerNotFound extends Error {}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the server: `setting` itself when it contains a path separator,
 * otherwise the first executable of that name on `PATH` (with `PATHEXT` on Windows).
 * Throws `ServerNotFound` with an actionable message.
 */
export function resolveServerPath(
  setting: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const wanted = setting.trim() || "agent-ls";
  const hint =
    'Install it with "pipx install agent-ls" (or "uv tool install agent-ls"), ' +
    "or set agentLs.serverPath to the full path of the agent-ls executable.";
  if (wanted.includes("/") || wanted.includes("\\")) {
    if (isExecutable(wanted)) {
      return path.resolve(wanted);
    }
    throw new ServerNotFound(`agent-ls server not found: ${wanted} is not an executable file. ${hint}`);
  }
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const exts = platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";")] : [""];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, wanted + ext);
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  throw new ServerNotFound(`agent-ls server not found: no "${wanted}" on PATH. ${hint}`);
}
