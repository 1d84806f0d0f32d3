/** Headless Debian Chromium for the tests, driven by playwright-core (no browser download). */

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** A private HOME / XDG tree so the browser never writes into the user's. */
export function privateHome(prefix: string): { dir: string; env: Record<string, string> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) {
      env[key] = value;
    }
  }
  Object.assign(env, {
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, ".config"),
    XDG_CACHE_HOME: path.join(dir, ".cache"),
    XDG_DATA_HOME: path.join(dir, ".local", "share"),
    XDG_STATE_HOME: path.join(dir, ".local", "state"), // agent-ls keeps its MCP trust there
  });
  return { dir, env };
}

export async function launchChromium(env: Record<string, string>): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    env,
  });
}
