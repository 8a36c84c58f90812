"""The MCP face: the vault's tools for agents over stdio (`vault-app mcp`) and streamable
HTTP (`vault-app serve`). The resident state is the workspace's (`vault_app.workspace`:
`VaultWorkspace`, or `FolderWorkspace` over a neighbour's folder); `server.build_server`
registers the tool groups, which map each tool to workspace and core calls."""
