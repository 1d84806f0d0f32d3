-- :checkhealth agent_ls — Neovim version, the server command, the running server's provider.
local M = {}

local health = vim.health or require("health")
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  local config = require("agent_ls.config").options
  start("agent-ls")
  if vim.fn.has("nvim-0.7") == 1 then
    ok("Neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
  else
    error("Neovim 0.7 or newer is needed")
  end
  local exe = config.cmd[1]
  if vim.fn.executable(exe) == 1 then
    ok("server command: " .. table.concat(config.cmd, " "))
  else
    error("server command not executable: " .. exe, { "install agent-ls, or set cmd in setup()" })
    return
  end
  local running = require("agent_ls.client").running()
  local any = false
  for root, client in pairs(running) do
    any = true
    local response = client.request_sync("agent/status", { check = false }, 5000)
    if response and response.result then
      local s = response.result
      ok(string.format("%s: provider %s, model %s (%s)", root, tostring(s.provider), tostring(s.model), tostring(s.reason)))
    else
      warn(root .. ": agent/status did not answer: " .. vim.inspect(response and response.err))
    end
  end
  if not any then
    info("no agent-ls server runs yet (it starts with the first file buffer or :AgentChat)")
  end
end

return M
