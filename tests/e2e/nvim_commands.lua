-- The Neovim a person runs for tests/e2e/test_nvim_commands.py (in tmux): the plugin set up
-- against the fake LLM. With PICKER=1, vim.ui.select is an asynchronous picker as telescope,
-- fzf-lua or snacks install: a floating window listing the prompt and the items, <CR> on an
-- item answers (after the call returned), q answers nothing.
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")

if vim.env.PICKER == "1" then
  vim.ui.select = function(items, opts, on_choice)
    local lines = { "PICKER " .. opts.prompt }
    for _, item in ipairs(items) do
      table.insert(lines, "> " .. opts.format_item(item))
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    local win = vim.api.nvim_open_win(buf, true, {
      relative = "editor", row = 2, col = 2, width = 150, height = #lines, style = "minimal", border = "single",
    })
    vim.api.nvim_win_set_cursor(win, { 2, 0 })
    local function done(choice)
      vim.api.nvim_win_close(win, true)
      on_choice(choice)
    end
    vim.keymap.set("n", "<CR>", function()
      done(items[vim.api.nvim_win_get_cursor(win)[1] - 1])
    end, { buffer = buf })
    vim.keymap.set("n", "q", function() done(nil) end, { buffer = buf })
  end
end
