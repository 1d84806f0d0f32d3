-- The server's edits to open buffers (workspace/applyEdit), without Vim's W12 dialog.
--
-- The server changes an open file twice: the buffer through workspace/applyEdit, then the file
-- on disk (atomically). Neovim's own handler leaves the buffer modified, so the next
-- :checktime (the plugin's after a turn or a command, or focus) finds a modified buffer whose
-- file changed on disk and asks "W12: File has changed and the buffer was changed in Vim as
-- well". The server edits only a buffer whose text equals the disk (it refuses one with unsaved
-- changes) and writes the text it sent to disk: the buffer holds nothing of the user's, and is
-- marked unmodified at once. When Neovim then finds the new file, 'autoread' reloads it
-- silently, and without 'autoread' Neovim sees the same text and says nothing (only the time
-- changed). Not saved with :write: the server already wrote the file, and BufWrite autocommands
-- (formatters) would make it differ from what the checkpoint recorded.
local M = {}

-- The loaded buffer of `uri` (the one Neovim's handler edits: bufadd's, which also knows a
-- file by another name of it), or nil; never creates one.
local function loaded_buffer(uri)
  local ok, name = pcall(vim.uri_to_fname, uri)
  if not ok or vim.fn.bufexists(name) == 0 then
    return nil
  end
  local buf = vim.uri_to_bufnr(uri)
  return vim.api.nvim_buf_is_loaded(buf) and buf or nil
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

--- Neovim's workspace/applyEdit handler, then every buffer it changed marked unmodified.
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
        vim.bo[buf].modified = false
      end
    end
  end
  return result
end

function M.handlers()
  return { ["workspace/applyEdit"] = M.apply_edit }
end

return M
