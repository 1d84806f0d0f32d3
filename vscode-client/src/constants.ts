/**
 * Names that belong to the extension alone: its palette commands, view id and URI schemes.
 *
 * The server's method, command and settings names are in `protocol.ts`, generated from
 * `server/protocol.py`.
 */

/** Commands this extension contributes to the palette (package.json `contributes.commands`). */
export const VSCODE_COMMANDS = {
  chat: "agentLs.chat",
  newChat: "agentLs.newChat",
  undo: "agentLs.undo",
  redo: "agentLs.redo",
  checkpoints: "agentLs.checkpoints",
  restartServer: "agentLs.restartServer",
  showCheckpointDiff: "agentLs.showCheckpointDiff",
} as const;

export const CHAT_VIEW_ID = "agentLs.chatView";
export const CHECKPOINT_SCHEME = "agent-ls-checkpoint";
export const STAGED_SCHEME = "agent-ls-staged";
