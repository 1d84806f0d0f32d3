-- Which workspace folder a path the server reports is in (the client side of actions/roots.py).
--
-- With one folder the server's paths are relative to it (`src/app.py`). With several (folders
-- added with vim.lsp.buf.add_workspace_folder()), every path starts with its folder's name
-- (`back/src/app.py`, `app@server/api.py`). The names are the server's own, from `agent/status`
-- `folders`: never guessed from the path or from the client's folder names (Neovim names a
-- folder by its full path).
local M = {}

local function is_list(value)
  return type(value) == "table" and value ~= vim.NIL
end

--- The folders of an `agent/status` result: { { name = ..., path = ... }, ... } ({} if none).
function M.parse(status)
  local found = {}
  if not is_list(status) or not is_list(status.folders) then
    return found
  end
  for _, folder in ipairs(status.folders) do
    if is_list(folder) and type(folder.name) == "string" and type(folder.path) == "string" and folder.path ~= "" then
      table.insert(found, { name = folder.name, path = folder.path })
    end
  end
  return found
end

--- The absolute file name of `path` (a path from a server payload), or nil + why not.
function M.locate(folders, path)
  local parts = {}
  for part in tostring(path):gsub("\\", "/"):gmatch("[^/]+") do
    if part == ".." then
      return nil, path .. ': a path with ".." is not in a workspace folder'
    end
    if part ~= "." then
      table.insert(parts, part)
    end
  end
  if #folders == 0 then
    return nil, path .. ": no workspace folder is known"
  end
  if #folders == 1 then
    return folders[1].path .. "/" .. table.concat(parts, "/")
  end
  for _, folder in ipairs(folders) do
    if folder.name == parts[1] and #parts > 1 then
      return folder.path .. "/" .. table.concat(parts, "/", 2)
    end
  end
  local names = vim.tbl_map(function(f) return f.name end, folders)
  return nil, path .. ": names no workspace folder (the folders are " .. table.concat(names, ", ") .. ")"
end

--- The workspace folders of client `c` as the server names them; `on_done(folders, err)`.
--- Without an answer from the server, the client's one folder (several: `err` says why not).
function M.fetch(c, on_done)
  c.request("agent/status", { check = false }, function(err, result)
    local folders = err and {} or M.parse(result)
    if #folders > 0 then
      return on_done(folders)
    end
    local own = c.workspace_folders or {}
    if #own > 1 then
      local why = err and (err.message or tostring(err)) or "the server listed no folders"
      return on_done({}, "cannot tell which workspace folder holds a file: " .. why)
    end
    local root = own[1] and vim.uri_to_fname(own[1].uri) or c.config.root_dir
    on_done(root and { { name = "", path = root } } or {})
  end)
end

return M
