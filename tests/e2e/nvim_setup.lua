-- What every plugin script of the Neovim tests starts with: the plugin from PLUGIN_DIR set up
-- against the fake LLM (LLM_URL), notifications recorded in `out.notes`, and `clients()` (the
-- running LSP clients, in 0.7's API and 0.11's). Loaded with dofile by the scripts beside it.
local env = vim.env
vim.opt.runtimepath:prepend(env.PLUGIN_DIR)
vim.cmd("runtime! plugin/agent_ls.lua")
require("agent_ls").setup({
  cmd = { env.AGENT_LS_PYTHON, "-m", "server" },
  init_options = { agentLs = { baseUrl = env.LLM_URL, model = "fake" } },
})
local out = { notes = {} }
vim.notify = function(msg) table.insert(out.notes, msg) end

local function clients()
  return vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
end

return { out = out, clients = clients }
