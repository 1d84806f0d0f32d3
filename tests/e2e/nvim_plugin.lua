-- Drives the agent-ls Neovim plugin (nvim-client/) as a user would, in a real headless Neovim:
-- open a file, :AgentChat, type a message at the prompt, watch the answer stream in, then
-- :AgentCheckpoints and :AgentUndo. Inputs: environment variables set by test_nvim_plugin.py.
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
local out = setup.out

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
local file_buf = vim.api.nvim_get_current_buf()
vim.wait(10000, function() return #vim.lsp.get_active_clients() > 0 and vim.lsp.get_active_clients()[1].initialized end, 20)
out.attached = vim.lsp.buf_is_attached(file_buf, vim.lsp.get_active_clients()[1].id)

vim.cmd("AgentChat")
local chat = require("agent_ls.chat")
local state = chat.state()
out.chat_is_current = vim.api.nvim_get_current_buf() == state.buf
-- Type the message at the prompt and press Enter, as a user does.
vim.api.nvim_feedkeys("i" .. env.MESSAGE .. "\r", "tx", false)
out.busy_after_enter = state.busy
out.finished = vim.wait(60000, function() return not state.busy end, 20)
out.chat = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
out.result = state.last_result
out.file_buffer = table.concat(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), "\n") .. "\n"

local new_file = io.open(env.WORKSPACE .. "/src/new.py")
out.new_module_on_disk = new_file and new_file:read("*a")
if new_file then new_file:close() end

vim.cmd("AgentCheckpoints")
vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20)
out.qflist = vim.tbl_map(function(item) return item.text end, vim.fn.getqflist())
out.qffiles = vim.tbl_map(function(item) return vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":p") end, vim.fn.getqflist())

local undone = false
vim.cmd("AgentUndo")
vim.wait(10000, function()
  for _, note in ipairs(out.notes) do
    if note:find("undid", 1, true) or note:find("failed", 1, true) then undone = true end
  end
  return undone
end, 20)
out.after_undo_buffer = table.concat(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), "\n") .. "\n"

vim.cmd("checkhealth agent_ls")
vim.wait(5000, function() return vim.bo.filetype == "checkhealth" or #vim.api.nvim_buf_get_lines(0, 0, -1, false) > 3 end, 20)
out.health = vim.api.nvim_buf_get_lines(0, 0, -1, false)

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(vim.lsp.get_active_clients()) do client.stop() end
vim.cmd("qa!")
