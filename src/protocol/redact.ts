/**
 * Task ids are bearer-like secrets (a server may use them as the only key to a task's state), so they never
 * appear whole in error messages or log lines. Errors still carry the full id as a property, so callers can
 * resume or cancel the task.
 */
export function redactTaskId(taskId: string): string {
  if (taskId.length <= 8) return "…";
  return `${taskId.slice(0, 4)}…${taskId.slice(-2)}`;
}
