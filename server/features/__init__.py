"""One module per LSP method or command; each exposes `register(server)`."""
