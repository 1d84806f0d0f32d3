-- The chat window of the agent-ls Neovim plugin as a user sees it: :AgentChat opens it (the
-- prompt is there before Insert mode), `:AgentChat MESSAGE` sends a first message, then SECOND
-- is typed at the prompt. Records the chat buffer's lines at each point. Inputs: environment
-- variables set by test_nvim_plugin.py.
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
local out, clients = setup.out, setup.clients

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
vim.wait(10000, function() return #clients() > 0 and clients()[1].initialized end, 20)

vim.cmd("AgentChat")
local chat = require("agent_ls.chat")
local state = chat.state()
out.opened = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
out.opened_mode = vim.api.nvim_get_mode().mode

vim.cmd("AgentChat " .. env.MESSAGE)
out.first_finished = vim.wait(60000, function() return not state.busy end, 20)
out.after_first = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)

vim.api.nvim_feedkeys("i" .. env.SECOND .. "\r", "tx", false)
out.second_sent = state.busy
out.second_finished = vim.wait(60000, function() return not state.busy end, 20)
out.chat = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(clients()) do client.stop() end
vim.cmd("qa!")
