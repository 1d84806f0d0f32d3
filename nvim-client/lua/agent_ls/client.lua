-- Starting / attaching the agent-ls language server; one client per workspace root.
-- Works on Neovim 0.7 (vim.lsp.start_client) and 0.8+ (vim.lsp.start).
local config = require("agent_ls.config")

local M = {}
local by_root = {} -- root -> client id

--- The workspace root of a file: the nearest folder holding a root marker, else the cwd.
function M.root_for(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or vim.fn.getcwd()
  for _, marker in ipairs(config.options.root_markers) do
    local folder = vim.fn.finddir(marker, dir .. ";")
    if folder ~= "" then
      return vim.fn.fnamemodify(folder, ":p:h:h") -- ":p" of a folder ends with "/"
    end
    local file = vim.fn.findfile(marker, dir .. ";")
    if file ~= "" then
      return vim.fn.fnamemodify(file, ":p:h")
    end
  end
  return vim.fn.getcwd()
end

local function alive(id)
  local client = id and vim.lsp.get_client_by_id(id)
  return client ~= nil and not client.is_stopped()
end

--- The agent-ls client for `root`, started if needed (nil + message if it cannot start).
function M.ensure(root)
  root = root or vim.fn.getcwd()
  if alive(by_root[root]) then
    return by_root[root]
  end
  local opts = config.options
  if vim.fn.executable(opts.cmd[1]) == 0 then
    return nil, "agent-ls: cannot start `" .. opts.cmd[1] .. "` (not executable; set cmd in setup())"
  end
  local id = vim.lsp.start_client({
    name = "agent-ls",
    cmd = opts.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ":t") } },
    init_options = opts.init_options,
    handlers = require("agent_ls.progress").handlers(),
  })
  if not id then
    return nil, "agent-ls: the server did not start (see :LspLog)"
  end
  by_root[root] = id
  return id
end

--- Attach agent-ls to a file buffer (autostart).
function M.attach(bufnr)
  if vim.bo[bufnr].buftype ~= "" or vim.api.nvim_buf_get_name(bufnr) == "" then
    return
  end
  local id = M.ensure(M.root_for(bufnr))
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

--- Wait until the client has initialized; returns the client object or nil + message.
function M.ready(id, timeout)
  local ok = vim.wait(timeout or 10000, function()
    local client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.initialized
  end, 20)
  if not ok then
    return nil, "agent-ls: the server did not answer initialize"
  end
  return vim.lsp.get_client_by_id(id)
end

--- The running client for `root` (default: the current buffer's root), started if needed and
--- ready for requests; nil + message when it cannot be had.
function M.current(root)
  local id, err = M.ensure(root or M.root_for(0))
  if not id then
    return nil, err
  end
  return M.ready(id)
end

--- Every agent-ls client that runs (for :checkhealth).
function M.running()
  local out = {}
  for root, id in pairs(by_root) do
    if alive(id) then
      out[root] = vim.lsp.get_client_by_id(id)
    end
  end
  return out
end

return M
