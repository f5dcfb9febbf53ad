/**
 * `mcp-tasks/testing`: a scriptable reference server for the MCP Tasks extension (2026-07-28), built
 * on `@modelcontextprotocol/server` and certified by the official conformance suite; with
 * `era: "2025-11-25"` it serves the same tools as 2025-11-25 tasks on the v1 SDK. Start it in a
 * test, script tools step by step, point a client at `server.url`, and inspect `server.tasks` and
 * `server.requests`.
 *
 * @module mcp-tasks/testing
 */
export { startTaskServer } from "./http-server.js";
export type { HttpTaskServer, HttpTaskServerOptions } from "./http-server.js";
export type { TaskServerAuth } from "./auth/gate.js";
export type { BearerAuthOptions, OAuthServerOptions, ServerAuthOptions } from "./auth/options.js";
export type { TokenRequest } from "./auth/authorization-server.js";
export { startStdioTaskServer } from "./stdio-server.js";
export type { StdioTaskServerOptions } from "./stdio-server.js";
export type { TaskServer, TaskServerEra, TaskServerOptions } from "./server-core.js";
export { EraOptionError } from "./legacy/options.js";
export { LegacySdkMissingError } from "./legacy/sdk.js";
export type { ListenBehaviour } from "./listen-behaviour.js";

export { defineTool } from "./tool.js";
export type { Advance, CancelPolicy, FromArguments, TaskSupport, ToolDefinition } from "./tool.js";
export {
  acceptedContent,
  elicitForm,
  elicitUrl,
  listRoots,
  sampleText,
  step,
  structuredResult,
  textResult,
} from "./steps.js";
export type { FromCall, Step, ToolCall } from "./steps.js";
export { fixtureTools } from "./fixtures.js";
export type { FixtureOptions } from "./fixtures.js";

export type { TaskInspection, TaskStoreView } from "./task-store.js";
export { RequestLog } from "./request-log.js";
export type { RecordedRequest } from "./request-log.js";
export { NotificationLog } from "./notification-log.js";
export type { SentNotification } from "./notification-log.js";
export { systemClock } from "./clock.js";
export type { Clock, TimerHandle } from "./clock.js";
export { ScriptError, ToolDefinitionError } from "./errors.js";
export { CliUsageError, describeTools, runTaskServerCli, taskServerMain, taskServerUsage } from "./cli.js";
