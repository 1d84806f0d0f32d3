-- Drives agent-ls' code actions from a real headless Neovim (0.7+): for each step, the
-- user's own path — vim.lsp.buf.code_action (cursor + line diagnostics) or
-- vim.lsp.buf.range_code_action (a selection) — then vim.ui.select picks the action by
-- title; Neovim resolves it (codeAction/resolve) and runs a returned command through
-- workspace/executeCommand. The step ends when agent-ls shows its outcome
-- (window/showMessage) or Neovim reports an error. Inputs come from environment variables
-- set by tests/e2e/test_code_actions_neovim.py; results go to RESULT_FILE as JSON.
local env = vim.env
local out = { steps = {}, edits = 0, messages = {}, errors = {} }

local apply_edit = vim.lsp.handlers["workspace/applyEdit"]
local handlers = {
  ["workspace/applyEdit"] = function(err, params, ctx, config)
    out.edits = out.edits + 1
    return apply_edit(err, params, ctx, config)
  end,
  ["window/showMessage"] = function(_, params)
    table.insert(out.messages, params)
  end,
}
vim.notify = function(message, level)
  table.insert(out.errors, { message = message, level = level })
end

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

local function run(step)
  local seen = { offered = {}, chosen = false }
  vim.ui.select = function(items, opts, on_choice)
    local pick = nil
    for _, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(seen.offered, title)
      if title == step.title then
        pick = item
      end
    end
    seen.chosen = pick ~= nil
    on_choice(pick)
  end
  local messages, errors = #out.messages, #out.errors
  if step.selection then
    local s = step.selection
    vim.lsp.buf.range_code_action({ diagnostics = {} }, { s[1], s[2] }, { s[3], s[4] })
  else
    vim.api.nvim_win_set_cursor(0, step.cursor)
    vim.lsp.buf.code_action({ diagnostics = step.diagnostics })
  end
  seen.finished = vim.wait(60000, function()
    return #out.messages > messages or #out.errors > errors
  end, 50)
  seen.buffer = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
  table.insert(out.steps, seen)
end

for _, step in ipairs(vim.fn.json_decode(env.STEPS)) do
  run(step)
end

local file = io.open(env.RESULT_FILE, "w")
file:write(vim.fn.json_encode(out))
file:close()
vim.lsp.stop_client(id)
vim.cmd("qa!")
