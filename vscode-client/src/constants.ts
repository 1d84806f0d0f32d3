/**
 * Names of agent-ls' own LSP methods, commands and settings section.
 *
 * Mirrored from `server/protocol.py`; `tests/unit/test_constants_mirror.py` checks that both
 * files agree, so a rename on one side fails the tests instead of silently breaking the client.
 */

export const AGENT_CHAT = "agent/chat";
export const AGENT_CHAT_PROGRESS = "agent/chatProgress";
export const AGENT_STATUS = "agent/status";
export const AGENT_SESSIONS = "agent/sessions";
export const AGENT_SEARCH = "agent/search";
export const AGENT_INDEX_UPDATED = "agent/indexUpdated";

export const CMD_CHAT = "agent.chat";
export const CMD_UNDO = "agent.undo";
export const CMD_REDO = "agent.redo";
export const CMD_CHECKPOINTS = "agent.checkpoints";
export const CMD_REINDEX = "agent.reindex";
export const CMD_ACCEPT = "agent.accept";
export const CMD_REJECT = "agent.reject";
export const CMD_STAGED_CONTENT = "agent.stagedContent";

export const CONFIG_SECTION = "agentLs";

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
