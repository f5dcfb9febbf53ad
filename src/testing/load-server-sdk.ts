/**
 * The parts of `@modelcontextprotocol/server` the reference server uses, loaded once for all of
 * `mcp-tasks/testing`. No module of `testing/` imports a value from the SDK directly: a static import of a
 * missing package fails before any code can explain it, so this module imports it dynamically (top-level
 * await) and turns a missing package into a clear error. The CommonJS build swaps in `load-server-sdk.cjs.ts`.
 */
import type * as ServerSdk from "@modelcontextprotocol/server";
import type * as ServerSdkStdio from "@modelcontextprotocol/server/stdio";
import { explainMissingServer } from "./peer.js";

async function load(): Promise<[typeof ServerSdk, typeof ServerSdkStdio]> {
  try {
    return await Promise.all([
      import("@modelcontextprotocol/server"),
      import("@modelcontextprotocol/server/stdio"),
    ]);
  } catch (error) {
    throw explainMissingServer(error);
  }
}

const [sdk, sdkStdio] = await load();

export const {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  Server,
  createMcpHandler,
  localhostAllowedHostnames,
  validateHostHeader,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  bearerAuthChallengeResponse,
  oauthMetadataResponse,
  getOAuthProtectedResourceMetadataUrl,
} = sdk;
export const { serveStdio, StdioServerTransport } = sdkStdio;
export type MissingRequiredClientCapabilityError = ServerSdk.MissingRequiredClientCapabilityError;
export type ProtocolError = ServerSdk.ProtocolError;
export type Server = ServerSdk.Server;
export type OAuthError = ServerSdk.OAuthError;
