-- Loaded by any plugin manager: commands exist at once; setup() from the user's config wins.
if vim.g.loaded_agent_ls then
  return
end
vim.g.loaded_agent_ls = true
vim.schedule(function()
  require("agent_ls").ensure_setup()
end)
