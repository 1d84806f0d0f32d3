"""The JSON-RPC wire under pygls: framing with resync, envelope checks, buffered writes.

pygls' own reader drops a frame it cannot structure without an answer and stays deaf after a
bad `Content-Length`; agent-ls reads the wire itself (`framing`), checks every message before
pygls sees it (`messages`) and answers each bad request with a JSON-RPC error naming the
problem. `serve` runs the loop for stdio and TCP, including the clean stop on signals.
"""
