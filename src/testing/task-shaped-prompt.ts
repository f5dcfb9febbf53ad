/**
 * Misbehaviour on request: a prompt whose `prompts/get` answers with a `CreateTaskResult`. Only
 * `tools/call` supports tasks, so a client must treat this answer as invalid; this prompt lets a
 * client test prove that it does.
 */
import { randomUUID } from "node:crypto";
import type { GetPromptResult, Server } from "@modelcontextprotocol/server";
import type { Clock } from "./clock.js";

export const TASK_SHAPED_PROMPT = "task_shaped_prompt";

/** Register `prompts/list` and `prompts/get` for the one task-shaped prompt (needs the `prompts` capability). */
export function installTaskShapedPrompt(server: Server, clock: Clock): void {
  server.setRequestHandler("prompts/list", () => ({
    prompts: [
      { name: TASK_SHAPED_PROMPT, description: "Answers prompts/get with a CreateTaskResult (invalid)." },
    ],
  }));
  server.setRequestHandler("prompts/get", () => {
    const now = new Date(clock.now()).toISOString();
    const task = {
      resultType: "task",
      taskId: randomUUID(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
    };
    return task as unknown as GetPromptResult;
  });
}
