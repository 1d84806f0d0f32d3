-- agent-ls for Neovim: the AI coding assistant language server, with a chat buffer and the
-- plan history (undo / redo) as commands.
--
--   require("agent_ls").setup({ cmd = { "agent-ls" }, init_options = { agentLs = { ... } } })
--
-- Commands: :AgentChat [message], :AgentResume [session id], :AgentStop, :AgentUndo[!], :AgentRedo[!] (! = force),
-- :AgentCheckpoints, :AgentAccept [files], :AgentReject [reason]. Health: :checkhealth agent_ls.
-- The workspace of a file: the nearest folder with a root marker, else the file's own folder;
-- the current directory only with no file open (client.root_for, README "Neovim").
local config = require("agent_ls.config")

local M = {}
local did_setup = false

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, opts or {})
end

function M.setup(opts)
  config.set(opts)
  did_setup = true
  local chat = require("agent_ls.chat")
  local history = require("agent_ls.history")
  command("AgentChat", function(a) chat.open(a.args) end, { nargs = "*", desc = "agent-ls: chat" })
  command("AgentResume", function(a) chat.resume(a.args) end, { nargs = "?", desc = "agent-ls: resume a stored chat" })
  command("AgentStop", function() chat.stop() end, { desc = "agent-ls: cancel the running request" })
  command("AgentUndo", function(a) history.undo(a.bang) end, { bang = true, desc = "agent-ls: undo the last plan" })
  command("AgentRedo", function(a) history.redo(a.bang) end, { bang = true, desc = "agent-ls: redo" })
  command("AgentCheckpoints", function() history.checkpoints() end, { desc = "agent-ls: plan history" })
  command("AgentAccept", function(a) history.accept(a.fargs) end, { nargs = "*", desc = "agent-ls: accept the plan" })
  command("AgentReject", function(a) history.reject(a.args) end, { nargs = "*", desc = "agent-ls: reject the plan" })
  if config.options.autostart then
    local group = vim.api.nvim_create_augroup("agent_ls", { clear = true })
    vim.api.nvim_create_autocmd("BufReadPost", {
      group = group,
      callback = function(args) require("agent_ls.client").attach(args.buf) end,
    })
  end
end

--- setup() with the defaults, unless the user already called it.
function M.ensure_setup()
  if not did_setup then
    M.setup({})
  end
end

return M
