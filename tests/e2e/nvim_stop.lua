-- :AgentStop in the agent-ls Neovim plugin: `:AgentChat MESSAGE` starts a turn whose model
-- stalls after a tool call; :AgentStop ends it; `:AgentChat SECOND` then gets its answer.
-- Records the chat buffer's lines. Inputs: environment variables set by test_nvim_plugin.py.
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
local out, clients = setup.out, setup.clients

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
vim.wait(10000, function() return #clients() > 0 and clients()[1].initialized end, 20)

vim.cmd("AgentChat " .. env.MESSAGE)
local state = require("agent_ls.chat").state()
out.stalled = vim.wait(60000, function()
  return vim.tbl_contains(lines(state.buf), "  ✓ list_files")
end, 20)
vim.cmd("AgentStop")
out.busy_after_stop = state.busy

vim.cmd("AgentChat " .. env.SECOND)
out.second_finished = vim.wait(60000, function() return not state.busy end, 20)
out.chat = lines(state.buf)

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(clients()) do client.stop() end
vim.cmd("qa!")
