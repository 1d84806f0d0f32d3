"""The Model Context Protocol servers users bring: one server's
connection (`connection`), the servers of a configuration (`manager`), their tools as
agent-ls tools (`tools`) and the tools of one turn (`turn`); the setting is
server/mcp_config.py. Docs: docs/mcp.md."""
