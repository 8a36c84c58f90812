"""The MCP face: the vault's tools for agents over stdio (`vault-app mcp`) and streamable
HTTP (`vault-app serve`); `runtime.Runtime` holds the resident state, `server.build_server`
registers the tool groups."""
