-- The server's edits to open buffers (workspace/applyEdit), without Vim's W12 dialog.
--
-- The server changes an open file twice: the buffer through workspace/applyEdit, then the file
-- on disk (atomically). Neovim's own handler leaves the buffer modified, so the next
-- :checktime (or focus) finds a modified buffer whose file changed on disk and asks "W12:
-- File has changed and the buffer was changed in Vim as well". The server edits only a buffer
-- whose text equals the disk (it refuses one with unsaved changes), so the buffer holds
-- nothing of the user's but the server's text, which it writes to disk too: the buffer is
-- marked unmodified at once. When Neovim notices the new file, 'autoread' reloads it
-- silently; without 'autoread', a FileChangedShell autocommand of that buffer reloads it
-- instead of asking (W11), as long as nobody typed in it since (else Neovim asks as usual).
local M = {}

local group = nil

local function augroup()
  group = group or vim.api.nvim_create_augroup("agent_ls_edits", { clear = true })
  return group
end

-- The loaded buffer of `uri`, or nil (without creating one).
local function loaded_buffer(uri)
  local ok, name = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.api.nvim_buf_get_name(buf) == name then
      return buf
    end
  end
  return nil
end

-- The documents whose text `edit` changes (TextDocumentEdits and `changes`; file creations,
-- renames and deletions are not text in a buffer).
local function edited_uris(edit)
  local uris = {}
  for _, change in ipairs((edit and edit.documentChanges) or {}) do
    if change.textDocument and change.textDocument.uri then
      table.insert(uris, change.textDocument.uri)
    end
  end
  for uri, _ in pairs((edit and edit.changes) or {}) do
    table.insert(uris, uri)
  end
  return uris
end

-- `buf` holds the server's text at changedtick `tick`: unmodified, and reloaded without asking
-- when Neovim next finds its file changed, unless it was changed since (then Neovim asks).
local function adopt(buf, tick)
  vim.bo[buf].modified = false
  local g = augroup()
  vim.api.nvim_clear_autocmds({ group = g, buffer = buf })
  vim.api.nvim_create_autocmd("FileChangedShell", {
    group = g,
    buffer = buf,
    callback = function()
      local ours = vim.api.nvim_buf_get_changedtick(buf) == tick
      vim.v.fcs_choice = (ours and vim.v.fcs_reason ~= "deleted") and "reload" or "ask"
    end,
  })
  -- After the change was handled (by the autocommand above or by 'autoread'): done.
  vim.api.nvim_create_autocmd("FileChangedShellPost", {
    group = g,
    buffer = buf,
    callback = function()
      vim.api.nvim_clear_autocmds({ group = g, buffer = buf })
    end,
  })
end

--- Neovim's workspace/applyEdit handler, then every buffer it changed adopted (see above).
function M.apply_edit(err, params, ctx, config)
  local uris = edited_uris(params and params.edit)
  local before = {}
  for _, uri in ipairs(uris) do
    local buf = loaded_buffer(uri)
    before[uri] = buf and vim.api.nvim_buf_get_changedtick(buf)
  end
  local result = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx, config)
  if result and result.applied then
    for _, uri in ipairs(uris) do
      local buf = loaded_buffer(uri)
      local tick = buf and vim.api.nvim_buf_get_changedtick(buf)
      if tick and tick ~= before[uri] then -- not a stale edit Neovim skipped
        adopt(buf, tick)
      end
    end
  end
  return result
end

function M.handlers()
  return { ["workspace/applyEdit"] = M.apply_edit }
end

return M
