/**
 * A real VS Code for the end-to-end tests: the fake LLM, code-server with the packaged .vsix,
 * and headless Chromium on a workbench page, all in a private HOME; plus the steps every test
 * takes (the chat panel, the command palette, the fake LLM's control endpoints).
 *
 * Needs CODE_SERVER (the code-server executable) and VSIX (the packaged extension); ci.sh sets
 * both and AGENT_LS_E2E_REQUIRED=1, so there a missing tool fails the run instead of skipping.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { CHROMIUM, launchChromium, privateHome } from "../browser";
import { type Service, installExtension, startCodeServer, startFakeLLM } from "./processes";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
export const PYTHON = process.env.AGENT_LS_PYTHON ?? path.join(REPO, ".venv", "bin", "python");
export const SERVER = process.env.AGENT_LS_SERVER ?? path.join(REPO, ".venv", "bin", "agent-ls");
const CODE_SERVER = process.env.CODE_SERVER ?? "";
const VSIX = process.env.VSIX ?? "";
const missing = [
  [CODE_SERVER, "CODE_SERVER"],
  [VSIX, "VSIX"],
  [CHROMIUM, "Chromium"],
  [PYTHON, "the project's Python"],
  [SERVER, "agent-ls"],
].filter(([file]) => !file || !fs.existsSync(file));
/** Why the end-to-end tests are skipped here (false: they run). */
export const SKIP: string | false = missing.length ? `missing ${missing.map(([, name]) => name).join(", ")}` : false;
if (SKIP && process.env.AGENT_LS_E2E_REQUIRED === "1") {
  throw new Error(`end-to-end test required but ${SKIP}`);
}

/** A quiet workbench talking to the fake LLM (no tips, no telemetry, no built-in AI chat). */
function userSettings(llmUrl: string, workspaceTrust: boolean): Record<string, unknown> {
  return {
    "agentLs.serverPath": SERVER,
    "agentLs.baseUrl": `${llmUrl}/v1`,
    "agentLs.model": "fake-model",
    "agentLs.retryBaseDelay": 0.05,
    "agentLs.trace.server": "messages",
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "security.workspace.trust.enabled": workspaceTrust,
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": true,
    "update.mode": "none",
    "chat.disableAIFeatures": true,
    "files.autoSave": "off",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
  };
}

export interface WorkbenchOptions {
  /** Temp directory prefix (the tree is removed after the tests unless one failed). */
  prefix: string;
  /** The fake LLM's first script. */
  script: unknown;
  /** Seeds the projects under the private home; returns what the workbench opens
   * (`folder=…` or `workspace=…`, URL-encoded). */
  open: (home: string) => string;
  /** Workspace Trust on, as VS Code ships: the folder opens asking whether you trust its
   * authors (default off: every folder is trusted, no prompt). */
  workspaceTrust?: boolean;
}

export class Workbench {
  page!: Page;
  logs = ""; // the extension's install output
  llmUrl = "";
  private browser?: Browser;
  private readonly services: Service[] = [];
  private keepLogs = false; // a failure keeps the temp tree (logs, screenshot) for a look

  private constructor(readonly homeDir: string) {}

  static async start(options: WorkbenchOptions): Promise<Workbench> {
    const home = privateHome(options.prefix);
    const trust = options.workspaceTrust ?? false;
    const bench = new Workbench(home.dir);
    const target = options.open(home.dir);
    const llm = await startFakeLLM(PYTHON, REPO, options.script, home.dir, home.env);
    bench.services.push(llm);
    bench.llmUrl = llm.url;
    const dirs = { userData: path.join(home.dir, "user-data"), extensions: path.join(home.dir, "extensions") };
    fs.mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
    fs.writeFileSync(path.join(dirs.userData, "User", "settings.json"), JSON.stringify(userSettings(llm.url, trust)));
    bench.logs = await installExtension(CODE_SERVER, VSIX, dirs, home.env);
    const codeServer = await startCodeServer(CODE_SERVER, dirs, home.dir, home.env, trust);
    bench.services.push(codeServer);
    bench.browser = await launchChromium(home.env);
    bench.page = await bench.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await bench.page.goto(`${codeServer.url}/?${target}`);
    await bench.page.waitForSelector(".monaco-workbench", { timeout: 90_000 });
    return bench;
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    for (const service of this.services.reverse()) {
      await service.stop();
    }
    if (!this.keepLogs) {
      fs.rmSync(this.homeDir, { recursive: true, force: true });
    }
  }

  /** The chat panel's document: VS Code nests the webview's page in two iframes. */
  panel(): FrameLocator {
    return this.page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
  }

  async runCommand(title: string): Promise<void> {
    await this.page.keyboard.press("F1");
    await this.page.waitForSelector(".quick-input-widget input", { state: "visible" });
    await this.page.keyboard.type(title);
    await this.page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label^="${title}"]`);
    await this.page.keyboard.press("Enter");
  }

  /** On failure, a screenshot of the window next to the logs (path in the error). */
  async pictured(name: string, body: () => Promise<void>): Promise<void> {
    try {
      await body();
    } catch (error) {
      this.keepLogs = true;
      const file = path.join(this.homeDir, `${name}-failure.png`);
      await this.page.screenshot({ path: file }).catch(() => undefined);
      throw new Error(`${String(error)}\nscreenshot: ${file}\nlogs: ${this.homeDir}`, { cause: error });
    }
  }

  /** The fake LLM's next replies. */
  async setScript(script: unknown): Promise<void> {
    const response = await fetch(`${this.llmUrl}/_control/script`, { method: "POST", body: JSON.stringify(script) });
    assert.equal(response.status, 200, await response.text());
  }

  /** Empties the fake LLM's request log. */
  async resetRequests(): Promise<void> {
    await fetch(`${this.llmUrl}/_control/reset`, { method: "POST" });
  }

  /** The requests the fake LLM received since the last reset. */
  async requests<T>(): Promise<T[]> {
    return (await (await fetch(`${this.llmUrl}/_control/requests`)).json()) as T[];
  }
}
