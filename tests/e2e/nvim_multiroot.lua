-- The agent-ls Neovim plugin with two workspace folders, as a user gets them: open a file of
-- the first folder, add the second with vim.lsp.buf.add_workspace_folder(), chat a plan that
-- edits the same relative path in both, then :AgentCheckpoints. Inputs: environment variables
-- set by test_nvim_plugin.py (SECOND_FOLDER: the folder to add).
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
local out, clients = setup.out, setup.clients

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
vim.wait(10000, function() return #clients() > 0 and clients()[1].initialized end, 20)
local c = clients()[1]
out.attached = c ~= nil and c.initialized

-- What a user types: :lua vim.lsp.buf.add_workspace_folder("/path/to/back")
vim.lsp.buf.add_workspace_folder(env.SECOND_FOLDER)
-- The server has the folder once agent/status lists it (asked again until then).
local listed = {}
local deadline = vim.loop.hrtime() + 15e9
repeat
  local answered = false
  c.request("agent/status", { check = false }, function(_, result)
    listed = require("agent_ls.roots").parse(result)
    answered = true
  end)
  vim.wait(5000, function() return answered end, 20)
until #listed == 2 or vim.loop.hrtime() > deadline
out.folders = listed

vim.cmd("AgentChat " .. env.MESSAGE)
local state = require("agent_ls.chat").state()
out.finished = vim.wait(60000, function() return not state.busy end, 20)
out.chat = vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)

vim.cmd("AgentCheckpoints")
vim.wait(10000, function() return #vim.fn.getqflist() > 0 end, 20)
out.qf = vim.tbl_map(function(item)
  return { file = item.bufnr > 0 and vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ":p") or "", text = item.text }
end, vim.fn.getqflist())
-- :cfirst / :cnext open the files as a user would: each buffer shows its folder's file.
out.opened = {}
for index = 1, #out.qf do
  vim.cmd("cc " .. index)
  table.insert(out.opened, {
    name = vim.api.nvim_buf_get_name(0),
    text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n"),
  })
end

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(clients()) do client.stop() end
vim.cmd("qa!")
