-- A stored chat resumed in the Neovim plugin as a user would: open a file, :AgentResume (the
-- newest stored conversation of the workspace), read it in the chat buffer, then type a
-- message that continues it. Inputs: environment variables set by test_sessions_replay.py.
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
local out = setup.out

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
vim.wait(10000, function() return #setup.clients() > 0 and setup.clients()[1].initialized end, 20)

vim.cmd("AgentResume")
local chat = require("agent_ls.chat")
local state = chat.state()
local function text() return table.concat(vim.api.nvim_buf_get_lines(state.buf, 0, -1, false), "\n") end
out.shown = vim.wait(20000, function() return text():find(env.LAST_ANSWER, 1, true) ~= nil end, 20)
out.resumed = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
out.session_id = state.session_id

vim.api.nvim_feedkeys("i" .. env.MESSAGE .. "\r", "tx", false) -- typed at the prompt
out.finished = vim.wait(60000, function() return not state.busy and text():find(env.NEXT_ANSWER, 1, true) ~= nil end, 20)
out.chat = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
vim.cmd("qa!")
