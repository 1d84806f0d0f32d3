-- agent-ls for Neovim: configuration (defaults merged with require("agent_ls").setup(opts)).
local M = {}

M.defaults = {
  -- How to start the server; a list (argv). `agent-ls` must be on PATH, or give the full path.
  cmd = { "agent-ls" },
  -- Sent as initializationOptions; `agentLs` keys are the server's settings (see README).
  init_options = { agentLs = {} },
  -- Start/attach agent-ls for every normal file buffer (false: only when a command needs it).
  autostart = true,
  -- The workspace root of a file: the nearest folder (the file's own, then up) holding one of
  -- these; without one, the file's own folder. With no file open: the current directory.
  root_markers = { ".git", "pyproject.toml", "package.json", "Cargo.toml", "go.mod" },
  -- How the chat window opens: "vsplit", "split" or "tab".
  chat_window = "vsplit",
}

M.options = vim.deepcopy(M.defaults)

function M.set(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  return M.options
end

return M
