"""The Model Context Protocol servers users bring: one server's connection (`connection`),
the servers of a configuration (`manager`), their tools as agent-ls tools (`tools`), the
tools of one turn (`turn`), a project's trusted `.mcp.json` (`project`); the setting is
server/mcp_config.py. Docs: docs/mcp.md."""
