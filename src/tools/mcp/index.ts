/** MCP servers as tools of the loop (issue 28): the config (./config.ts), the servers of a run (./servers.ts). */
export { loadMcpConfigs, mcpServerConfig, parseMcpConfig, McpConfigError, type McpServerConfig, type McpServerConfigInput, type McpStdioConfig, type McpHttpConfig } from './config.js';
export { startMcpServers, type McpSdkServer, type McpServers, type McpServerSpec, type McpTransport, type McpServerState, type McpServersOptions } from './servers.js';
export { connectMcpServer, type McpConnection, type McpConnectOptions } from './connect.js';
export { mcpToolName } from './tools.js';
export { scopedMcpServers, projectKeyOf, type McpScope, type McpScopeOptions } from './scopes.js';
