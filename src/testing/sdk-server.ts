/**
 * The `@modelcontextprotocol/server` instance behind every transport. The SDK serves discovery, the
 * `_meta` envelope, header validation and MRTR plumbing; these handlers add the Tasks extension on
 * top: `tools/list`, `tools/call`, and `tasks/get|update|cancel` registered with explicit schemas
 * (which is what lets `tasks/get` and `tasks/cancel` past the SDK's 2026-07-28 era gate).
 */
import type {
  CallToolResult,
  Implementation,
  ListToolsResult,
  ServerContext,
} from "@modelcontextprotocol/server";
import { Server } from "./load-server-sdk.js";
import * as z from "zod/v4";
import { declaresTasks, missingTasksCapability } from "./capabilities.js";
import type { Clock } from "./clock.js";
import { TASKS_EXTENSION_ID } from "./constants.js";
import type { TaskEngine } from "./engine.js";
import { installTaskShapedPrompt } from "./task-shaped-prompt.js";

const taskParams = { params: z.looseObject({ taskId: z.string() }) };

function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx.mcpReq.envelope)) throw missingTasksCapability();
}

export interface ServerFactoryOptions {
  serverInfo: Implementation;
  clock: Clock;
  /** Also serve the misbehaving `task_shaped_prompt`. */
  taskShapedPrompt: boolean;
}

/** Builds one SDK server over the engine (an `McpServerFactory`: HTTP builds one per request, stdio one in all). */
export type ServerFactory = () => Server;

/** A factory of SDK servers that all serve the same engine. */
export function createServerFactory(engine: TaskEngine, options: ServerFactoryOptions): ServerFactory {
  return () => {
    const server = new Server(options.serverInfo, {
      capabilities: {
        // A listen that asks for `toolsListChanged` hears of `setTools` (./listen.ts, and the SDK's own router).
        tools: { listChanged: true },
        ...(options.taskShapedPrompt && { prompts: {} }),
        extensions: { [TASKS_EXTENSION_ID]: {} },
      },
    });
    if (options.taskShapedPrompt) installTaskShapedPrompt(server, options.clock);
    server.setRequestHandler("tools/list", () => ({
      tools: engine.listTools() as unknown as ListToolsResult["tools"],
    }));
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const result = await engine.callTool({
        name: request.params.name,
        arguments: request.params.arguments,
        declaresTasks: declaresTasks(ctx.mcpReq.envelope),
        inputResponses: ctx.mcpReq.inputResponses,
        droppedInputResponseKeys: ctx.mcpReq.droppedInputResponseKeys,
        requestState: ctx.mcpReq.requestState(),
        signal: ctx.mcpReq.signal,
      });
      // A CreateTaskResult is not in the SDK's result types; the encoder forwards its resultType.
      return result as unknown as CallToolResult;
    });
    server.setRequestHandler("tasks/get", taskParams, ({ taskId }, ctx) => {
      requireTasks(ctx);
      return engine.getTask(taskId) as unknown as Record<string, unknown>;
    });
    server.setRequestHandler("tasks/update", taskParams, ({ taskId }, ctx) => {
      requireTasks(ctx);
      engine.updateTask(taskId, ctx.mcpReq.inputResponses, ctx.mcpReq.droppedInputResponseKeys);
      return {};
    });
    server.setRequestHandler("tasks/cancel", taskParams, ({ taskId }, ctx) => {
      requireTasks(ctx);
      engine.cancelTask(taskId);
      return {};
    });
    return server;
  };
}
