-- Starting / attaching the agent-ls language server; one client per workspace root.
-- Works on Neovim 0.7 (vim.lsp.start_client) and 0.8+ (vim.lsp.start).
local config = require("agent_ls.config")

local M = {}
local by_root = {} -- root -> client id

-- The file a buffer shows, or nil: an empty buffer, a help, quickfix, terminal or chat buffer,
-- or a buffer of a plugin's URL (fugitive://, oil://) has none.
local function file_of(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or vim.bo[bufnr].buftype ~= "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  return vim.fn.fnamemodify(name, ":p")
end

-- The first of the root markers `dir` holds, or nil.
local function marker_in(dir)
  local stat = (vim.uv or vim.loop).fs_stat
  for _, marker in ipairs(config.options.root_markers) do
    if stat(dir .. "/" .. marker) then
      return marker
    end
  end
  return nil
end

--- The workspace root of a buffer, and why that folder (a phrase the chat shows):
--- - a file's: the nearest folder holding a root marker (config root_markers), starting with
---   the file's own folder; without one above it, the file's own folder;
--- - a buffer with no file (an empty buffer, :AgentChat from nothing): Neovim's current
---   directory;
--- - the chat buffer: the chat's workspace.
function M.root_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local own = vim.b[bufnr].agent_ls_root
  if own then
    return own, "the chat's workspace"
  end
  local file = file_of(bufnr)
  if not file then
    return vim.fn.getcwd(), "no file open: Neovim's current directory"
  end
  local folder = vim.fn.fnamemodify(file, ":h")
  local dir = folder
  while true do
    local marker = marker_in(dir)
    if marker then
      return dir, "the nearest folder with " .. marker
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      break
    end
    dir = parent
  end
  local markers = table.concat(config.options.root_markers, ", ")
  return folder, "the file's folder: no root marker (" .. markers .. ") in it or above it"
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
    handlers = vim.tbl_extend(
      "error",
      require("agent_ls.progress").handlers(),
      require("agent_ls.edits").handlers() -- applyEdit: no W12 dialog (edits.lua)
    ),
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
  local id = M.ensure((M.root_for(bufnr)))
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
  local id, err = M.ensure(root or (M.root_for(0)))
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
