/**
 * Checks a tool's results against its `outputSchema` (MCP: clients SHOULD). The schemas come from the client's
 * tool catalog (`tools/list`, fetched once, when a first result needs it or a first call becomes a task,
 * dropped on `notifications/tools/list_changed`, and fetched again once before a result is refused, since a
 * 2026-07-28 connection hears of a change only while a listen is open); each is compiled once per listing, on the
 * validator loaded the first time a tool has a schema. A run asks for its tool's check before its result is
 * mapped, and asks again if the list was dropped since (`generation`), so the check itself is synchronous and
 * runs once per result, never per poll.
 */
import type { CallToolResult } from "../schema/index.js";
import { OutputSchemaError, RpcError, type OutputProblem } from "../protocol/errors.js";
import { ErrorCode } from "../protocol/constants.js";
import type { ToolCatalog, ToolInfo } from "./catalog.js";
import type { JsonSchemaValidator } from "./json-schema.js";

/**
 * Checks one result of a tool: undefined when it may be handed on (it matches, or the tool reported an error,
 * which the spec exempts), otherwise the error that ends the handle instead.
 */
export type OutputCheck = (
  result: CallToolResult,
  method: string,
  taskId: string | undefined,
) => OutputSchemaError | undefined;

/** A check, now when it is known, or once the tool list (or the validator) has arrived. */
export type OutputCheckLookup = OutputCheck | undefined | Promise<OutputCheck | undefined>;

export interface OutputChecksOptions {
  /** The validator to use; undefined loads `@cfworker/json-schema` on first need. */
  validator: JsonSchemaValidator | undefined;
  /** False when the server said it has no tools (no `tools` capability): nothing is ever fetched then. */
  listsTools: boolean;
  warn(message: string, error?: unknown): void;
}

/** The most problems an error keeps, and the longest text of each (server data can make them long). */
const MAX_PROBLEMS = 20;
const MAX_TEXT = 200;

export class OutputChecks {
  private readonly compiled = new WeakMap<ToolInfo, OutputCheck>();
  private validator: JsonSchemaValidator | undefined;
  private loading: Promise<JsonSchemaValidator> | undefined;
  private listsTools: boolean;

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly options: OutputChecksOptions,
  ) {
    this.validator = options.validator;
    this.listsTools = options.listsTools;
  }

  /**
   * Which tool list a check comes from: it moves whenever the list is dropped (`notifications/tools/list_changed`,
   * or a refused result's fetch in {@link recheckFor}), so a run knows when its check may be stale.
   */
  get generation(): number {
    return this.catalog.version;
  }

  private relisting: Promise<void> | undefined;

  /**
   * The check for `toolName` from the tool list fetched anew, for a result `current` (from list `since`) refused:
   * the schema may have changed without a `notifications/tools/list_changed` reaching this client. Results
   * refused together share one fetch, and a list fetched (or dropped) since `since` is used as it is now. When the
   * list cannot be fetched, `current` stays. Never rejects.
   */
  recheckFor(toolName: string, since: number, current: OutputCheck): Promise<OutputCheck | undefined> {
    if (since === this.generation) {
      this.relisting ??= this.catalog.refresh().finally(() => {
        this.relisting = undefined;
      });
    }
    const relisted = this.relisting ?? Promise.resolve();
    return relisted
      .then(() => this.catalog.tool(toolName)) // fetched again if a list_changed dropped it meanwhile
      .then(
        (tool) => this.checkOf(tool),
        (error: unknown) => {
          this.options.warn(
            "tools/list failed: this tool result is checked against the schema listed before",
            error,
          );
          return current;
        },
      );
  }

  /** The check for `toolName`'s results (undefined: nothing to check). Never rejects. */
  checkFor(toolName: string): OutputCheckLookup {
    if (!this.listsTools) return undefined;
    if (this.catalog.isLoaded) return this.checkOf(this.catalog.cached(toolName));
    return this.catalog.tool(toolName).then(
      (tool) => this.checkOf(tool),
      (error: unknown) => {
        this.unlisted(error);
        return undefined;
      },
    );
  }

  private checkOf(tool: ToolInfo | undefined): OutputCheckLookup {
    const schema = tool?.outputSchema;
    if (tool === undefined || !isSchema(schema)) return undefined;
    const known = this.compiled.get(tool);
    if (known !== undefined) return known;
    if (this.validator !== undefined) return this.compile(tool, schema, this.validator);
    this.loading ??= loadBundledValidator();
    return this.loading.then(
      (validator) => {
        this.validator = validator;
        return this.compile(tool, schema, validator);
      },
      (error: unknown) => {
        this.loading = undefined; // tried again for the next result
        return failingCheck(tool.name, `${BUNDLED} could not be imported`, error, ONE_FILE_ADVICE);
      },
    );
  }

  private compile(
    tool: ToolInfo,
    schema: Record<string, unknown>,
    validator: JsonSchemaValidator,
  ): OutputCheck {
    let check: OutputCheck;
    try {
      check = checkAgainst(tool.name, validator.compile(schema));
    } catch (error) {
      check = failingCheck(tool.name, "its outputSchema could not be compiled", error);
    }
    this.compiled.set(tool, check);
    return check;
  }

  /** `tools/list` failed: a server without it is not asked again; other faults are asked again next time. */
  private unlisted(error: unknown): void {
    if (error instanceof RpcError && error.code === ErrorCode.methodNotFound) {
      this.listsTools = false;
      this.options.warn("the server has no tools/list: tool results are not checked against output schemas");
      return;
    }
    this.options.warn("tools/list failed: this tool result is not checked against its output schema", error);
  }
}

/** A check against a compiled schema, with the spec's exemption for results that report a tool error. */
function checkAgainst(toolName: string, validate: (value: unknown) => OutputProblem[]): OutputCheck {
  const unusable = (why: string, cause: unknown) => failingCheck(toolName, why, cause);
  return (result, method, taskId) => {
    if (result.isError === true) return undefined;
    const structured = result.structuredContent;
    let problems: OutputProblem[];
    try {
      problems =
        structured === undefined
          ? [{ path: "", message: "structuredContent is missing" }]
          : validate(structured);
    } catch (error) {
      const why = pastBudget(error)
        ? "it is past the validation budget"
        : "its outputSchema could not be applied";
      return unusable(why, error)(result, method, taskId);
    }
    if (problems.length === 0) return undefined;
    const kept = problems.slice(0, MAX_PROBLEMS).map((problem) => ({
      path: clip(problem.path),
      message: clip(problem.message),
    }));
    const [first] = kept as [OutputProblem];
    const where = first.path === "" ? "" : `${first.path}: `;
    const more = problems.length > 1 ? ` (${problems.length} problems in all)` : "";
    const message = `the result of "${toolName}" does not match its outputSchema: ${where}${first.message}${more}`;
    return new OutputSchemaError(message, method, toolName, taskId, result, kept);
  };
}

/** A check that fails every result it is asked about (the schema cannot be checked): nothing unchecked passes. */
function failingCheck(toolName: string, why: string, cause: unknown, advice = ""): OutputCheck {
  return (result, method, taskId) => {
    if (result.isError === true) return undefined;
    const message = `the result of "${toolName}" could not be checked: ${why} (${textOf(cause)})${advice}`;
    return new OutputSchemaError(message, method, toolName, taskId, result, [], { cause });
  };
}

/**
 * The bundled validator's refusal to go on (`bounded-validate.ts`), known by its name: importing the class would
 * bring the validator into the main entry.
 */
function pastBudget(error: unknown): boolean {
  return error instanceof Error && error.name === "ValidationBudgetError";
}

/** `outputSchema` is an object schema, as the spec requires; anything else is not one the client can use. */
function isSchema(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  const value = String(text);
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}

function textOf(error: unknown): string {
  return clip(error instanceof Error ? error.message : String(error));
}

/* ---- The bundled validator, loaded on first need ------------------------------------------------------- */

/** This package's own `mcp-tasks/json-schema` entry, over `@cfworker/json-schema`. */
const BUNDLED = "mcp-tasks/json-schema";
const ONE_FILE_ADVICE =
  '; in a bundle made into one file, pass validateOutput: jsonSchemaValidator (from "mcp-tasks/json-schema"), ' +
  "or validateOutput: false";
let bundled: Promise<JsonSchemaValidator> | undefined;

/**
 * The validator of `mcp-tasks/json-schema` (over `@cfworker/json-schema`, a dependency), imported the first time a
 * tool has an `outputSchema`. The specifier is kept in a variable so a bundler leaves it alone: the main entry
 * stays as small with any bundler, and a bundle made into one file (a Worker, a page) fails here instead; the
 * result's error says what to pass then.
 */
export function loadBundledValidator(): Promise<JsonSchemaValidator> {
  bundled ??= importBundled().catch((error: unknown) => {
    bundled = undefined;
    throw error;
  });
  return bundled;
}

async function importBundled(): Promise<JsonSchemaValidator> {
  const specifier = BUNDLED;
  type Entry = { jsonSchemaValidator?: JsonSchemaValidator };
  const loaded = (await import(/* @vite-ignore */ specifier)) as Entry & { default?: Entry };
  // From CommonJS code the namespace may hold the module under `default` only.
  return (loaded.jsonSchemaValidator ?? loaded.default?.jsonSchemaValidator) as JsonSchemaValidator;
}
