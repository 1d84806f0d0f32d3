-- Review mode in a real headless Neovim: the plan is staged by a chat through the plugin,
-- then accepted through the "Accept all AI changes" code action as a user picks it.
local env = vim.env
vim.opt.runtimepath:prepend(env.PLUGIN_DIR)
require("agent_ls").setup({
  cmd = { env.AGENT_LS_PYTHON, "-m", "server" },
  init_options = { agentLs = { baseUrl = env.LLM_URL, model = "fake", review = "on" } },
})
local out = { notes = {} }
vim.notify = function(msg) table.insert(out.notes, msg) end

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
local file_buf = vim.api.nvim_get_current_buf()
vim.wait(10000, function()
  local c = vim.lsp.get_active_clients()[1]
  return c ~= nil and c.initialized
end, 20)

local chat = require("agent_ls.chat")
chat.open(env.MESSAGE)
local state = chat.state()
out.finished = vim.wait(60000, function() return not state.busy end, 20)
out.plan_state = state.last_result and state.last_result.plan and state.last_result.plan.state
local disk = io.open(env.OPEN_FILE):read("*a")
out.disk_before_accept = disk

-- The user, back in the file, asks for code actions and picks "Accept all AI changes".
vim.api.nvim_set_current_buf(file_buf)
local picked = nil
if vim.fn.has("nvim-0.8") == 1 then
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      if action.title:find("Accept all AI changes", 1, true) then
        picked = action.title
        return true
      end
      return false
    end,
  })
else -- 0.7: list, pick, and run the command as its code_action handler does
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = {} }
  local results = vim.lsp.buf_request_sync(file_buf, "textDocument/codeAction", params, 10000)
  for id, response in pairs(results or {}) do
    for _, action in ipairs(response.result or {}) do
      if action.title:find("Accept all AI changes", 1, true) then
        picked = action.title
        local command = action.command.command and action.command or action
        vim.lsp.get_client_by_id(id).request("workspace/executeCommand", command, function() end)
      end
    end
  end
end
vim.wait(20000, function() -- the last file of the plan is a deletion
  return vim.fn.filereadable(env.WORKSPACE .. "/old.txt") == 0
end, 20)
out.picked = picked
local new_file = io.open(env.WORKSPACE .. "/src/new.py")
out.new_module = new_file and new_file:read("*a")
out.app_on_disk = io.open(env.OPEN_FILE):read("*a")
vim.wait(3000, function()
  return table.concat(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), "\n") .. "\n" == out.app_on_disk
end, 20)
out.app_buffer = table.concat(vim.api.nvim_buf_get_lines(file_buf, 0, -1, false), "\n") .. "\n"

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
for _, client in ipairs(vim.lsp.get_active_clients()) do client.stop() end
vim.cmd("qa!")
