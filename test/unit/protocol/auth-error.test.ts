/** `AuthError.forTask`: the error that ends a handle keeps everything the server said. */
import { describe, expect, it } from "vitest";
import { AuthError } from "mcp-tasks";

describe("AuthError.forTask", () => {
  it("keeps the status, challenge, scope, OAuth error, description, metadata URL and cause, and names the task", () => {
    const cause = new Error("refused");
    const original = new AuthError({
      method: "subscriptions/listen",
      reason: "insufficient_scope",
      status: 403,
      challenge: 'Bearer error="insufficient_scope", scope="tasks:read tasks:write"',
      scope: "tasks:read tasks:write",
      oauthError: "insufficient_scope",
      errorDescription: "needs write",
      resourceMetadataUrl: "https://tools.example.com/.well-known/oauth-protected-resource/mcp",
      cause,
    });
    const forTask = original.forTask("task-0123456789");
    expect(forTask).toBeInstanceOf(AuthError);
    expect(forTask).toMatchObject({
      taskId: "task-0123456789",
      method: "subscriptions/listen",
      reason: "insufficient_scope",
      status: 403,
      challenge: 'Bearer error="insufficient_scope", scope="tasks:read tasks:write"',
      scope: "tasks:read tasks:write",
      oauthError: "insufficient_scope",
      errorDescription: "needs write",
      resourceMetadataUrl: "https://tools.example.com/.well-known/oauth-protected-resource/mcp",
    });
    expect(forTask.cause).toBe(cause);
    expect(forTask.message).toContain('scope "tasks:read tasks:write"');
    expect(forTask.message).not.toContain("task-0123456789"); // ids are redacted in messages
  });

  it("returns the error itself when it already names that task", () => {
    const error = new AuthError({ method: "tasks/get", reason: "unauthorized", status: 401, taskId: "t-1" });
    expect(error.forTask("t-1")).toBe(error);
  });
});
