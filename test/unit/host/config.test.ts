/**
 * Reading the config files users have (Claude Desktop / Claude Code / Cursor `mcpServers`, VS Code `servers`)
 * into a host's servers: `disabled` skipped, `${env:NAME}` expanded, unknown fields reported once, a bad file an
 * error naming the file and the field.
 */
import { describe, expect, it } from "vitest";
import { parseConfig, parseConfigText, type ConfigSource } from "../../../src/host/config.js";

function source(env: Record<string, string> = {}): ConfigSource & { warnings: string[] } {
  const warnings: string[] = [];
  return { name: "mcp.json", env, warn: (message) => warnings.push(message), warnings };
}

describe("the mcpServers format (Claude Desktop, Claude Code, Cursor)", () => {
  it("reads stdio and URL servers, expanding ${env:NAME}, and skips disabled ones", () => {
    const from = source({ TOKEN: "s3cret", HOME_DIR: "/home/ada" });
    const servers = parseConfig(
      {
        mcpServers: {
          files: {
            command: "npx",
            args: ["-y", "files-server", "${env:HOME_DIR}/docs"],
            env: { API_TOKEN: "${env:TOKEN}" },
          },
          remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
          off: { command: "never-started", disabled: true },
        },
      },
      from,
    );
    expect(servers).toEqual({
      files: { command: "npx", args: ["-y", "files-server", "/home/ada/docs"], env: { API_TOKEN: "s3cret" } },
      remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer s3cret" } },
    });
    expect(from.warnings).toEqual([]);
  });

  it("reports each field it does not read, once, and still reads the server", () => {
    const from = source();
    const servers = parseConfig(
      { mcpServers: { a: { command: "a", timeout: 5, autoApprove: [] } }, globalShortcut: "x" },
      from,
    );
    expect(servers).toEqual({ a: { command: "a" } });
    expect(from.warnings).toEqual([
      "mcp.json: ignoring the field globalShortcut, which mcp-tasks does not read",
      "mcp.json: ignoring the field mcpServers.a.timeout, which mcp-tasks does not read",
      "mcp.json: ignoring the field mcpServers.a.autoApprove, which mcp-tasks does not read",
    ]);
  });
});

describe("the VS Code format", () => {
  it("reads typed stdio and http servers", () => {
    const from = source({ KEY: "k" });
    expect(
      parseConfig(
        {
          servers: {
            local: { type: "stdio", command: "node", args: ["server.js"], cwd: "/srv" },
            api: { type: "http", url: "http://127.0.0.1:3000/mcp", headers: { "X-Key": "${env:KEY}" } },
          },
        },
        from,
      ),
    ).toEqual({
      local: { command: "node", args: ["server.js"], cwd: "/srv" },
      api: { url: "http://127.0.0.1:3000/mcp", headers: { "X-Key": "k" } },
    });
  });

  it("refuses ${input:…} with a clear error: inputs are not supported", () => {
    expect(() =>
      parseConfig(
        {
          inputs: [{ id: "key", type: "promptString" }],
          servers: { api: { type: "http", url: "https://x.example/mcp", headers: { Key: "${input:key}" } } },
        },
        source(),
      ),
    ).toThrow(
      'mcp.json: servers.api.headers.Key uses ${input:key}: VS Code "inputs" are not supported; use ${env:NAME} instead',
    );
  });

  it('warns that an "sse" server is spoken to over Streamable HTTP', () => {
    const from = source();
    expect(parseConfig({ servers: { old: { type: "sse", url: "https://x.example/sse" } } }, from)).toEqual({
      old: { url: "https://x.example/sse" },
    });
    expect(from.warnings).toEqual([
      'mcp.json: servers.old is type "sse"; mcp-tasks speaks Streamable HTTP to its url (the 2024-11-05 SSE transport is not supported)',
    ]);
  });
});

describe("a bad file is an error naming the file and the field", () => {
  it.each([
    ["{ not json", /^mcp\.json: not valid JSON/],
    ["[]", "mcp.json: the config must be a JSON object"],
    ['{"other": {}}', 'mcp.json: the config has neither "mcpServers" nor "servers"'],
    ['{"mcpServers": []}', "mcp.json: mcpServers must be an object of server names to servers"],
    ['{"mcpServers": {"a": {}}}', "mcp.json: mcpServers.a needs a `command` or a `url`"],
    [
      '{"mcpServers": {"a": {"command": "x", "args": [1]}}}',
      "mcp.json: mcpServers.a.args must be an array of strings",
    ],
    [
      '{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}',
      "mcp.json: mcpServers.a.env.K must be a string",
    ],
    [
      '{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}',
      "mcp.json: mcpServers.a has both `url` and `command`",
    ],
    [
      '{"servers": {"a": {"type": "ws", "url": "http://h/"}}}',
      'mcp.json: servers.a.type must be "stdio", "http" or "sse"',
    ],
    ['{"servers": {"a": {"type": "http"}}}', 'mcp.json: servers.a.url is required with type "http"'],
    [
      '{"mcpServers": {"a": {"url": "http://h/", "args": []}}}',
      "mcp.json: mcpServers.a.args applies to a `command` server only",
    ],
    [
      '{"mcpServers": {"a": {"command": "x", "args": ["${env:UNSET_VAR}"]}}}',
      "mcp.json: mcpServers.a.args[0] names ${env:UNSET_VAR}, which is not set",
    ],
    [
      '{"mcpServers": {"a": {"command": "${workspaceFolder}/x"}}}',
      "mcp.json: mcpServers.a.command uses ${workspaceFolder}: only ${env:NAME} is expanded",
    ],
  ])("%s", (text, message) => {
    expect(() => parseConfigText(text, source())).toThrow(message);
  });
});
