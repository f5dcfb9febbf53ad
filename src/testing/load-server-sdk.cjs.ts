/**
 * The CommonJS twin of `load-server-sdk.ts` (the tsup CJS build resolves `./load-server-sdk.js` here): CommonJS has no
 * top-level await, so the SDK is required synchronously, with the same explanation when it is missing.
 */
import type * as ServerSdk from "@modelcontextprotocol/server";
import type * as ServerSdkStdio from "@modelcontextprotocol/server/stdio";
import { explainMissingServer } from "./peer.js";

function load(): [typeof ServerSdk, typeof ServerSdkStdio] {
  try {
    /* eslint-disable @typescript-eslint/no-require-imports -- CommonJS build only */
    return [require("@modelcontextprotocol/server"), require("@modelcontextprotocol/server/stdio")];
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch (error) {
    throw explainMissingServer(error);
  }
}

const [sdk, sdkStdio] = load();

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
