-- Review mode's states in the chat of a real headless Neovim: the turn shows its files staged
-- (never written), then :AgentAccept of one file and :AgentReject of the rest each confirm in
-- the chat what was applied / rejected and what still waits.
local env = vim.env
vim.opt.runtimepath:prepend(env.PLUGIN_DIR)
require("agent_ls").setup({
  cmd = { env.AGENT_LS_PYTHON, "-m", "server" },
  init_options = { agentLs = { baseUrl = env.LLM_URL, model = "fake", review = "on" } },
})
local out = { notes = {} }
vim.notify = function(msg) table.insert(out.notes, msg) end

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
vim.wait(10000, function()
  local c = vim.lsp.get_active_clients()[1]
  return c ~= nil and c.initialized
end, 20)

local chat = require("agent_ls.chat")
local history = require("agent_ls.history")
chat.open(env.MESSAGE)
local state = chat.state()
out.finished = vim.wait(60000, function() return not state.busy end, 20)

local function lines()
  return table.concat(vim.api.nvim_buf_get_lines(state.buf, 0, -1, false), "\n")
end
out.turn = lines()

local done = false
history.accept({ "src/new.py" }, function() done = true end)
out.accepted = vim.wait(20000, function() return done end, 20)
out.after_accept = lines()

done = false
history.reject("keep print", function() done = true end)
out.rejected = vim.wait(20000, function() return done end, 20)
out.after_reject = lines()
out.plan_state = state.last_result and state.last_result.plan and state.last_result.plan.state

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(vim.lsp.get_active_clients()) do client.stop() end
vim.cmd("qa!")
