-- Drives agent-ls from a real headless Neovim (0.7+): start the server, open a file,
-- send agent/chat, let Neovim apply the edits natively, record what it saw, quit.
-- Inputs come from environment variables set by tests/e2e/test_neovim.py.
local env = vim.env
local out = { progress = {}, edits = 0 }

local apply_edit = vim.lsp.handlers["workspace/applyEdit"]
local handlers = {
  ["agent/chatProgress"] = function(_, params)
    table.insert(out.progress, params.kind)
  end,
  ["workspace/applyEdit"] = function(err, params, ctx, config)
    out.edits = out.edits + 1
    return apply_edit(err, params, ctx, config)
  end,
}

local id = vim.lsp.start_client({
  name = "agent-ls",
  cmd = { env.AGENT_LS_PYTHON, "-m", "server" },
  root_dir = env.WORKSPACE,
  workspace_folders = { { uri = vim.uri_from_fname(env.WORKSPACE), name = "ws" } },
  init_options = { agentLs = { baseUrl = env.LLM_URL, model = "fake" } },
  handlers = handlers,
})

vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, id)
vim.wait(10000, function()
  local client = vim.lsp.get_client_by_id(id)
  return client ~= nil and client.initialized
end, 50)

local client = vim.lsp.get_client_by_id(id)
local done = false
client.request("agent/chat", { message = env.MESSAGE }, function(err, result)
  out.error = err and err.message or nil
  out.result = result
  done = true
end, bufnr)
vim.wait(60000, function() return done end, 50)

out.done = done
out.buffer = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
out.modified = vim.api.nvim_buf_get_option(bufnr, "modified")
local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
vim.lsp.stop_client(id)
vim.cmd("qa!")
