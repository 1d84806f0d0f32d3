/** Child processes of the end-to-end test: the fake LLM and code-server, stopped by process group. */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface Service {
  url: string;
  stop(): Promise<void>;
  log(): string;
}

export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function started(command: string, args: string[], options: { cwd?: string; env: Record<string, string>; logFile: string }): ChildProcess {
  const out = fs.openSync(options.logFile, "a");
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", out, out] });
  fs.closeSync(out);
  return child;
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) {
    return;
  }
  const exited = new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
  }, 5000);
  await exited;
  clearTimeout(timer);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

/** `python -m tests.fakellm` serving `script` on a free port. */
export async function startFakeLLM(python: string, repo: string, script: unknown, dir: string, env: Record<string, string>): Promise<Service> {
  const scriptFile = path.join(dir, "script.json");
  const portFile = path.join(dir, "fakellm.port");
  const logFile = path.join(dir, "fakellm.log");
  fs.writeFileSync(scriptFile, JSON.stringify(script));
  const child = started(python, ["-m", "tests.fakellm", "--port", "0", "--script", scriptFile, "--port-file", portFile], { cwd: repo, env, logFile });
  const port = await until("the fake LLM", 30_000, async () => {
    if (child.exitCode !== null) {
      throw new Error(`fakellm exited ${child.exitCode}: ${fs.readFileSync(logFile, "utf8")}`);
    }
    return fs.existsSync(portFile) ? fs.readFileSync(portFile, "utf8").trim() : undefined;
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => stopGroup(child), log: () => fs.readFileSync(logFile, "utf8") };
}

export interface CodeServerDirs {
  userData: string;
  extensions: string;
}

export async function installExtension(codeServer: string, vsix: string, dirs: CodeServerDirs, env: Record<string, string>): Promise<string> {
  const { stdout, stderr } = await run(
    codeServer,
    ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions, "--install-extension", vsix],
    { env, timeout: 120_000 },
  );
  return stdout + stderr;
}

/**
 * code-server on a free loopback port, no auth; resolves once it answers /healthz. Workspace
 * Trust is off (every folder trusted) unless `workspaceTrust`.
 */
export async function startCodeServer(
  codeServer: string,
  dirs: CodeServerDirs,
  logDir: string,
  env: Record<string, string>,
  workspaceTrust = false,
): Promise<Service> {
  const port = await freePort();
  const logFile = path.join(logDir, "code-server.log");
  const child = started(
    codeServer,
    [
      "--bind-addr", `127.0.0.1:${port}`,
      "--auth", "none",
      "--disable-telemetry",
      "--disable-update-check",
      ...(workspaceTrust ? [] : ["--disable-workspace-trust"]),
      "--user-data-dir", dirs.userData,
      "--extensions-dir", dirs.extensions,
    ],
    { env, logFile },
  );
  const url = `http://127.0.0.1:${port}`;
  await until("code-server", 90_000, async () => {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited ${child.exitCode}: ${fs.readFileSync(logFile, "utf8")}`);
    }
    try {
      return (await fetch(`${url}/healthz`)).ok ? true : undefined;
    } catch {
      return undefined;
    }
  });
  return { url, stop: () => stopGroup(child), log: () => fs.readFileSync(logFile, "utf8") };
}
