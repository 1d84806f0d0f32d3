"""The Agent Client Protocol front end (`agent-ls acp`): the same agent core over ACP."""
