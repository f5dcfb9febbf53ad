/**
 * The server's tools, as `tools/list` describes them: fetched on first use (every page), kept for the
 * connection, and dropped when the server says the list changed. Over Streamable HTTP a tool whose
 * `x-mcp-header` declarations break the rules is left out with a warning (the spec's MUST), and on any transport
 * so is a tool whose definition nests deeper than `MAX_JSON_DEPTH`, so one bad definition cannot block the others.
 */
import type { RpcChannel } from "../session/types.js";
import { ProtocolError } from "../protocol/errors.js";
import { Method } from "../protocol/constants.js";
import { scanParamHeaders, type ParamHeader } from "../protocol/param-headers.js";
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from "../protocol/depth.js";

/** One tool as the server lists it. Fields this library does not read are kept as they came. */
export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  /** JSON Schema of the tool's `structuredContent`; results are checked against it (`validateOutput`). */
  outputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What header mirroring needs from the catalog. */
export interface ToolSchemas {
  /** The tool's definition (fetching tools/list on first use); undefined if the server has no such tool. */
  tool(name: string): Promise<ToolInfo | undefined>;
  /** The tool's definition if tools/list was already fetched, without asking the server. */
  cached(name: string): ToolInfo | undefined;
  /** Drops the cache and fetches tools/list again. */
  refresh(): Promise<void>;
}

const MAX_PAGES = 100;
const LIST_CHANGED = "notifications/tools/list_changed";

export interface CatalogOptions {
  /** Whether `x-mcp-header` rules apply (Streamable HTTP only). */
  checkParamHeaders: boolean;
  warn(message: string): void;
}

interface Entry {
  tool: ToolInfo;
  /** Its `x-mcp-header` declarations (checked on HTTP only). */
  headers: readonly ParamHeader[];
}

export class ToolCatalog implements ToolSchemas {
  private entries: Map<string, Entry> | undefined;
  private loading: Promise<Map<string, Entry>> | undefined;
  private drops = 0;

  constructor(
    private readonly channel: RpcChannel,
    private readonly options: CatalogOptions,
  ) {
    channel.onNotification((method) => {
      if (method === LIST_CHANGED) this.forget();
    });
  }

  /** Every tool the server offers, in its order. */
  async list(): Promise<ToolInfo[]> {
    return [...(await this.load()).values()].map((entry) => entry.tool);
  }

  async tool(name: string): Promise<ToolInfo | undefined> {
    return (await this.load()).get(name)?.tool;
  }

  cached(name: string): ToolInfo | undefined {
    return this.entries?.get(name)?.tool;
  }

  /**
   * Counts the times the list was dropped (`list_changed`, `refresh`): a definition read under another value may
   * be stale.
   */
  get version(): number {
    return this.drops;
  }

  /** Whether the list is at hand (fetched, and not dropped by a `list_changed` since). */
  get isLoaded(): boolean {
    return this.entries !== undefined;
  }

  /** The `x-mcp-header` declarations of a cached tool (none when it is unknown or not cached). */
  paramHeaders(name: string): readonly ParamHeader[] {
    return this.entries?.get(name)?.headers ?? [];
  }

  async refresh(): Promise<void> {
    this.forget();
    await this.load();
  }

  private forget(): void {
    this.drops++;
    this.entries = undefined;
    this.loading = undefined;
  }

  private load(): Promise<Map<string, Entry>> {
    if (this.entries !== undefined) return Promise.resolve(this.entries);
    if (this.loading === undefined) {
      const loading = this.fetchAll().then(
        (entries) => {
          // A list_changed during the fetch made this answer stale: hand it out once, do not keep it.
          if (this.loading === loading) this.entries = entries;
          return entries;
        },
        (error: unknown) => {
          if (this.loading === loading) this.loading = undefined;
          throw error;
        },
      );
      this.loading = loading;
    }
    return this.loading;
  }

  private async fetchAll(): Promise<Map<string, Entry>> {
    const tools = new Map<string, Entry>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const raw = await this.channel.request(Method.toolsList, cursor === undefined ? {} : { cursor });
      if (!Array.isArray(raw.tools))
        throw new ProtocolError("tools/list answer has no tools array", Method.toolsList, raw);
      for (const entry of raw.tools) this.admit(entry, tools);
      cursor = typeof raw.nextCursor === "string" && raw.nextCursor !== "" ? raw.nextCursor : undefined;
      if (cursor === undefined) return tools;
    }
    this.options.warn(`tools/list: stopped after ${MAX_PAGES} pages; the rest of the list is ignored`);
    return tools;
  }

  private admit(entry: unknown, tools: Map<string, Entry>): void {
    if (typeof entry !== "object" || entry === null || typeof (entry as ToolInfo).name !== "string") {
      this.options.warn("tools/list: skipped an entry without a name");
      return;
    }
    const tool = entry as ToolInfo;
    // Hosts walk a tool's schemas (bridges convert them for their framework): a definition nested past the bound
    // is left out, never handed on, and the rest of the list stays.
    if (nestedDeeperThan(tool, MAX_JSON_DEPTH)) {
      this.options.warn(`tools/list: left out tool "${tool.name}": its definition ${tooDeep()}`);
      return;
    }
    let headers: readonly ParamHeader[] = [];
    if (this.options.checkParamHeaders) {
      const scan = scanParamHeaders(tool.inputSchema);
      if (!scan.ok) {
        this.options.warn(`tools/list: left out tool "${tool.name}": ${scan.reason}`);
        return;
      }
      headers = scan.headers;
    }
    tools.set(tool.name, { tool, headers });
  }
}

/**
 * A tool's `execution.taskSupport` (2025-11-25): whether calls may (`optional`) or must (`required`) be
 * task-augmented. Absent or unknown reads as `forbidden`, a plain call, which is what the spec says for absent.
 */
export type TaskSupport = "required" | "optional" | "forbidden";

export function taskSupportOf(tool: ToolInfo | undefined): TaskSupport {
  const execution = tool?.execution;
  if (typeof execution !== "object" || execution === null) return "forbidden";
  const value = (execution as { taskSupport?: unknown }).taskSupport;
  return value === "required" || value === "optional" ? value : "forbidden";
}
