/**
 * The conformance suite's client scenarios that `npm run conformance` runs against `TaskClient`, each with the
 * revisions it runs at and what the client under test does in it. This list is the only place to edit to cover
 * another scenario: add an entry (several scenarios may share one `run`). The suite's mock server records what
 * the client sends and judges it; `run` only has to do what the scenario asks (list tools, call them, answer
 * input) and return. A scenario that expects the client to refuse something should catch that refusal, check
 * it is the expected one, and return, so that any other error still fails the run.
 *
 * Only the public API (`mcp-tasks`, and `mcp-tasks/oauth` for authorization), exactly as an agent would use it.
 */
import { AuthError, TaskClient, type TaskClientOptions, type ToolInfo } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { approve, ConformanceOAuthProvider } from "./oauth-provider.js";

/** What `client.ts` prints last when a scenario ran to its end (the runner looks for it in `stdout.txt`). */
export const DONE_LINE = "mcp-tasks conformance client: done";

/** The revisions the suite runs client scenarios at (`--spec-version`). */
export type SpecVersion = "2026-07-28" | "2025-11-25";

export interface ScenarioContext {
  /** The scenario server's URL, as the suite gave it. */
  serverUrl: string;
  /** `MCP_CONFORMANCE_CONTEXT`, parsed: scenario data (tool calls to make, credentials); `{}` when none. */
  context: Record<string, unknown>;
  /**
   * Connects a `TaskClient` to the scenario's server (with `clientInfo` set) and checks that it negotiated the
   * revision the suite runs the scenario at. Close it when done (`await using`).
   */
  connect(options?: TaskClientOptions): Promise<TaskClient>;
}

export interface ClientScenario {
  /** The suite's scenario name (`conformance list --client`). */
  name: string;
  /** Each revision is one run of the scenario (`--spec-version`, `MCP_CONFORMANCE_PROTOCOL_VERSION`). */
  versions: readonly SpecVersion[];
  /** What the client under test does. Throwing (or not returning) fails the scenario. */
  run(scenario: ScenarioContext): Promise<void>;
}

/** Authorization: every scenario's MCP server answers 401 until the client brings a token from the flow. */
const BOTH: readonly SpecVersion[] = ["2025-11-25", "2026-07-28"];
const LATEST: readonly SpecVersion[] = ["2026-07-28"];
/** The client ID metadata document URL `auth/basic-cimd` expects (the suite never fetches it). */
const CIMD_URL = "https://conformance-test.local/client-metadata.json";

/** Connects through the OAuth flow with `provider`, lists the tools and calls the scenario server's one tool. */
async function authorized(
  { connect }: ScenarioContext,
  provider = new ConformanceOAuthProvider(),
): Promise<void> {
  await using client = await connect({ auth: oauth(provider, { authorizationResponse: approve }) });
  await client.listTools();
  await client.callTool("test-tool");
}

interface ExpectedRefusal {
  reason: AuthError["reason"];
  status?: number;
  /** What the underlying error's message must say. */
  cause?: RegExp;
}

/** `authorized`, for a scenario in which the client must refuse to go on: it must end with this `AuthError`. */
async function refused(scenario: ScenarioContext, expected: ExpectedRefusal): Promise<void> {
  try {
    await authorized(scenario);
  } catch (error) {
    const cause = error instanceof AuthError && error.cause instanceof Error ? error.cause.message : "";
    if (
      error instanceof AuthError &&
      error.reason === expected.reason &&
      (expected.status === undefined || error.status === expected.status) &&
      (expected.cause === undefined || expected.cause.test(cause))
    ) {
      console.error(`refused as expected: ${error.message} (${cause})`);
      return;
    }
    throw new Error(`expected an AuthError ${JSON.stringify(expected)}, got: ${String(error)} (${cause})`, {
      cause: error,
    });
  }
  throw new Error(`expected an AuthError ${JSON.stringify(expected)}, but the client went on`);
}

const AUTH_SCENARIOS: ClientScenario[] = [
  ...["metadata-default", "metadata-var1", "metadata-var2", "metadata-var3"].map((name) => ({
    name: `auth/${name}`,
    versions: BOTH,
    run: (scenario: ScenarioContext) => authorized(scenario),
  })),
  {
    // SEP-991: the server accepts client ID metadata documents, so the client's ID is its document's URL.
    name: "auth/basic-cimd",
    versions: BOTH,
    run: (scenario) => authorized(scenario, new ConformanceOAuthProvider({ clientMetadataUrl: CIMD_URL })),
  },
  {
    // A client registered ahead of time: its ID and secret come in the context, and nothing is registered.
    name: "auth/pre-registration",
    versions: BOTH,
    run: (scenario) => {
      const { client_id, client_secret } = scenario.context;
      if (typeof client_id !== "string" || typeof client_secret !== "string") {
        throw new Error("MCP_CONFORMANCE_CONTEXT has no client_id and client_secret");
      }
      return authorized(scenario, new ConformanceOAuthProvider({ client: { client_id, client_secret } }));
    },
  },
  ...[
    "scope-from-www-authenticate",
    "scope-from-scopes-supported",
    "scope-omitted-when-undefined",
    "scope-step-up",
    "token-endpoint-auth-basic",
    "token-endpoint-auth-post",
    "token-endpoint-auth-none",
  ].map((name) => ({
    name: `auth/${name}`,
    versions: BOTH,
    run: (scenario: ScenarioContext) => authorized(scenario),
  })),
  {
    // The server keeps answering 403 insufficient_scope however often the client is authorized: it stops after
    // a bounded number of authorizations and reports the refusal.
    name: "auth/scope-retry-limit",
    versions: BOTH,
    run: (scenario) => refused(scenario, { reason: "insufficient_scope", status: 403 }),
  },
  {
    // The protected-resource metadata names another resource: no authorization is asked for.
    name: "auth/resource-mismatch",
    versions: LATEST,
    run: (scenario) =>
      refused(scenario, { reason: "authorization_failed", cause: /^Protected resource .* does not match/ }),
  },
  {
    // The authorization server's metadata names another issuer than the one it was fetched for.
    name: "auth/metadata-issuer-mismatch",
    versions: LATEST,
    run: (scenario) =>
      refused(scenario, {
        reason: "authorization_failed",
        cause: /^Issuer mismatch in authorization server metadata/,
      }),
  },
  // RFC 9207: the authorization response's `iss` is checked before the code is sent to the token endpoint.
  ...["iss-supported-missing", "iss-wrong-issuer", "iss-unexpected", "iss-normalized"].map((name) => ({
    name: `auth/${name}`,
    versions: LATEST,
    run: (scenario: ScenarioContext) =>
      refused(scenario, {
        reason: "authorization_failed",
        cause: /^Issuer mismatch in authorization response/,
      }),
  })),
  ...[
    "offline-access-scope",
    "offline-access-not-supported",
    "authorization-server-migration",
    "iss-supported",
    "iss-not-advertised",
  ].map((name) => ({
    name: `auth/${name}`,
    versions: LATEST,
    run: (scenario: ScenarioContext) => authorized(scenario),
  })),
];

export const CLIENT_SCENARIOS: readonly ClientScenario[] = [
  {
    // A tool call with numeric arguments.
    name: "tools_call",
    versions: ["2026-07-28", "2025-11-25"],
    async run({ connect }) {
      await using client = await connect();
      await client.listTools();
      await client.callTool("add_numbers", { a: 2, b: 3 });
    },
  },
  {
    // SEP-2575: the envelope and MCP-Protocol-Version on every request; the first request is refused with
    // -32022, and the client sends it again with a version the server lists.
    name: "request-metadata",
    versions: ["2026-07-28"],
    async run({ connect }) {
      await using client = await connect();
      await client.listTools();
    },
  },
  {
    // SEP-2322 multi round-trip requests: requestState echoed exactly, never invented, never carried over.
    name: "sep-2322-client-request-state",
    versions: ["2026-07-28"],
    async run({ connect }) {
      await using client = await connect({
        inputHandlers: { elicitation: async () => ({ action: "accept", content: { confirmed: true } }) },
      });
      await client.listTools();
      await client.callTool("test_mrtr_echo_state");
      await client.callTool("test_mrtr_no_state");
      await client.callTool("test_mrtr_unrelated");
      await client.callTool("test_mrtr_no_result_type");
    },
  },
  {
    // SEP-2243: Mcp-Method on every POST, Mcp-Name on tools/call.
    name: "http-standard-headers",
    versions: ["2026-07-28"],
    async run({ connect }) {
      await using client = await connect();
      await client.listTools();
      await client.callTool("test_headers");
      await client.callTool("my-hyphenated-tool");
    },
  },
  {
    // SEP-2243: x-mcp-header arguments mirrored as Mcp-Param-* headers. The calls to make come in the context.
    name: "http-custom-headers",
    versions: ["2026-07-28"],
    async run({ connect, context }) {
      await using client = await connect();
      await client.listTools();
      for (const call of toolCalls(context)) await client.callTool(call.name, call.arguments);
    },
  },
  {
    // SEP-2243: tools with invalid x-mcp-header declarations are left out of listTools(); the valid one is called.
    name: "http-invalid-tool-headers",
    versions: ["2026-07-28"],
    async run({ connect }) {
      await using client = await connect();
      for (const tool of await client.listTools()) await client.callTool(tool.name, requiredStrings(tool));
    },
  },
  {
    // SEP-2106: a network $ref in an inputSchema is never fetched.
    name: "json-schema-ref-no-deref",
    versions: ["2026-07-28"],
    async run({ connect }) {
      await using client = await connect();
      await client.listTools();
    },
  },
  {
    // SEP-1613 / SEP-2106: the inputSchema comes back exactly as the server sent it.
    name: "json-schema-2020-12-preservation",
    versions: ["2026-07-28"],
    async run({ connect }) {
      await using client = await connect();
      const focal = (await client.listTools()).find((tool) => tool.name === "json_schema_2020_12_tool");
      if (focal === undefined) throw new Error("tools/list did not offer json_schema_2020_12_tool");
      await client.callTool("json_schema_echo", { schema: focal.inputSchema });
    },
  },
  {
    // The initialize handshake, after a server/discover probe the 2025-era server does not understand.
    name: "initialize",
    versions: ["2025-11-25"],
    async run({ connect }) {
      await using client = await connect();
      await client.listTools();
    },
  },
  {
    // SEP-1034: an elicitation accepted with every field left out is sent with the schema's defaults.
    name: "elicitation-sep1034-client-defaults",
    versions: ["2025-11-25"],
    async run({ connect }) {
      await using client = await connect({
        inputHandlers: { elicitation: async () => ({ action: "accept", content: {} }) },
      });
      await client.listTools();
      await client.callTool("test_client_elicitation_defaults");
    },
  },
  {
    // SEP-1699: the tools/call stream closes after a priming event; the answer arrives on a GET reconnect made
    // after the `retry` delay, with Last-Event-ID.
    name: "sse-retry",
    versions: ["2025-11-25"],
    async run({ connect }) {
      await using client = await connect();
      await client.listTools();
      await client.callTool("test_reconnection");
    },
  },
  ...AUTH_SCENARIOS,
];

function toolCalls(context: Record<string, unknown>): { name: string; arguments: Record<string, never> }[] {
  const calls = context.toolCalls;
  if (!Array.isArray(calls) || calls.length === 0)
    throw new Error("MCP_CONFORMANCE_CONTEXT has no toolCalls");
  return calls as { name: string; arguments: Record<string, never> }[];
}

/** A value for each required argument (the scenario records only which tools were called). */
function requiredStrings(tool: ToolInfo): Record<string, string> {
  const required = tool.inputSchema?.required;
  const names = Array.isArray(required) ? required.filter((name) => typeof name === "string") : [];
  return Object.fromEntries(names.map((name) => [name, "conformance"]));
}
