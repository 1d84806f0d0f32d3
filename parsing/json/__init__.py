"""The JSON decoder of the snippet readers: one value read strictly (`strict`), by the
lossless fixes (`lossless`, `escaped_quotes`), tolerantly (`tolerant`, with its `rules` and
`scan`), or by json-repair as the last resort (`repair_fallback`); and the two JSON snippet
kinds built on it, bare and enclosed in a fence or tag (`snippets`, `regions`, `shortcuts`,
`code_values`)."""
