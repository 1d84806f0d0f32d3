/** Entry point: wires the client, the chat panel, the status bar and the commands. Nothing else. */

import * as vscode from "vscode";
import { AgentClient, errorMessage } from "./client";
import { ChatViewProvider } from "./chatView";
import { CheckpointContentProvider, pickCheckpoint, showCheckpointDiff } from "./checkpointView";
import { CHAT_VIEW_ID, CHECKPOINT_SCHEME, STAGED_SCHEME, VSCODE_COMMANDS } from "./constants";
import { CONFIG_SECTION } from "./protocol";
import { StagedContentProvider } from "./stagedDiff";
import { AgentStatusBar } from "./statusBar";

let running: AgentClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("agent-ls", { log: true });
  const client = new AgentClient(output);
  running = client;
  const statusBar = new AgentStatusBar();
  let statusTimer: NodeJS.Timeout | undefined;
  const refreshStatus = async () => {
    statusBar.update({ status: await client.status(), running: client.running });
    await chat.postStatus();
  };
  const refreshSoon = () => {
    clearTimeout(statusTimer);
    statusTimer = setTimeout(() => void refreshStatus(), 300);
  };
  const chat = new ChatViewProvider(context.extensionUri, client, (busy) => statusBar.update({ busy }));
  client.hooks.chatCommand = async (params) => {
    await chat.reveal();
    await chat.send(params.message, params.sessionId, params.context);
  };
  client.hooks.consent = (consent, token) => chat.askConsent(consent, token);
  client.hooks.askInstruction = (title) =>
    Promise.resolve(
      vscode.window.showInputBox({
        title,
        prompt: "Rewrite how? (empty: clearer and simpler, same behaviour)",
        placeHolder: "e.g. use pathlib instead of os.path",
      }),
    );
  // Starts and restarts one at a time: trusting the workspace fires a settings change and a
  // trust grant together, and two overlapping restarts would leave a server behind.
  let queue: Promise<void> = Promise.resolve();
  const serially = (task: () => Promise<void>): Promise<void> => (queue = queue.then(task, task));
  const start = async (restart: boolean) => {
    try {
      await (restart ? client.restart() : client.start());
    } catch (error) {
      const message = errorMessage(error);
      output.error(message);
      chat.notice("error", message);
      void vscode.window.showErrorMessage(message);
    }
    await refreshStatus();
  };

  context.subscriptions.push(
    output,
    client,
    statusBar,
    chat,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, new CheckpointContentProvider(client)),
    vscode.workspace.registerTextDocumentContentProvider(STAGED_SCHEME, new StagedContentProvider(client)),
    client.onDidChangeRunning((running) => statusBar.update({ running })),
    vscode.commands.registerCommand(VSCODE_COMMANDS.chat, () => chat.reveal()),
    vscode.commands.registerCommand(VSCODE_COMMANDS.newChat, async () => {
      await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
      chat.post({ type: "newChat" });
    }),
    vscode.commands.registerCommand(VSCODE_COMMANDS.undo, () => chat.move("Undo")),
    vscode.commands.registerCommand(VSCODE_COMMANDS.redo, () => chat.move("Redo")),
    vscode.commands.registerCommand(VSCODE_COMMANDS.checkpoints, () => pickCheckpoint(client)),
    vscode.commands.registerCommand(VSCODE_COMMANDS.restartServer, () => serially(() => start(true))),
    vscode.commands.registerCommand(VSCODE_COMMANDS.showCheckpointDiff, (id: string, file: string) =>
      showCheckpointDiff(client, id, file).catch((error: unknown) => chat.notice("error", errorMessage(error))),
    ),
    vscode.workspace.onDidChangeConfiguration((event) =>
      serially(async () => {
        if (client.launchChanged()) {
          await start(true);
        } else if (event.affectsConfiguration(CONFIG_SECTION)) {
          // The server re-reads agentLs.* itself (didChangeConfiguration -> workspace/configuration);
          // ask for its status once the language client has told it, not before.
          refreshSoon();
        }
      }),
    ),
    // Trusting the workspace makes its own values of the restricted settings (package.json
    // capabilities.untrustedWorkspaces) apply: a new serverPath / serverArgs restarts the
    // server, any other change is pulled by the running server. VS Code also reports the
    // change as a settings change; whichever comes first restarts, the other only re-pulls.
    vscode.workspace.onDidGrantWorkspaceTrust(() =>
      serially(async () => {
        if (client.launchChanged()) {
          await start(true);
        } else {
          await client.settingsChanged().catch((error: unknown) => output.warn(`didChangeConfiguration: ${errorMessage(error)}`));
          refreshSoon();
        }
      }),
    ),
  );
  await serially(() => start(false));
}

export async function deactivate(): Promise<void> {
  await running?.stop();
  running = undefined;
}
