-- Which folder the agent-ls Neovim plugin works in: open OPEN_FILE (or no file when it is
-- empty) in a Neovim started elsewhere, send MESSAGE with :AgentChat, let the plan apply,
-- then :AgentUndo in the chat window. Records the chat transcript, the plan's file and the
-- root of every agent-ls client. Inputs: environment variables set by test_nvim_plugin.py.
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
local out, clients = setup.out, setup.clients
out.cwd = vim.fn.getcwd()

if (env.OPEN_FILE or "") ~= "" then -- vim.env gives nil for an empty variable
  vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
  out.attached = vim.wait(10000, function() return #clients() > 0 and clients()[1].initialized end, 20)
end

vim.cmd("AgentChat " .. env.MESSAGE)
local state = require("agent_ls.chat").state()
out.finished = vim.wait(60000, function() return not state.busy end, 20)
out.chat = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
out.chat_is_current = vim.api.nvim_get_current_buf() == state.buf
local greetings = io.open(env.WORKSPACE .. "/greetings.py")
out.greetings = greetings and greetings:read("*a")
if greetings then greetings:close() end

-- :AgentUndo typed in the chat window undoes the chat's plan (the chat's workspace).
vim.cmd("AgentUndo")
vim.wait(10000, function()
  for _, note in ipairs(out.notes) do
    if note:find("undid", 1, true) or note:find("failed", 1, true) then return true end
  end
  return false
end, 20)
out.roots = vim.tbl_map(function(c) return c.config.root_dir end, clients())

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(clients()) do client.stop() end
vim.cmd("qa!")
