/** Which generation a server start asks for, checked once for both transports. */
import { EraOptionError } from "./legacy/options.js";
import type { TaskServerEra, TaskServerOptions } from "./server-core.js";

export const TASK_SERVER_ERAS: readonly TaskServerEra[] = ["2026-07-28", "2025-11-25"];

/**
 * The era to serve (default 2026-07-28); a 2026 start also refuses the 2025-only options.
 * @throws {EraOptionError} for an unknown era or an option of the other era.
 */
export function checkEra(options: TaskServerOptions): TaskServerEra {
  const era = options.era ?? "2026-07-28";
  if (!TASK_SERVER_ERAS.includes(era)) {
    throw new EraOptionError(`unknown era ${JSON.stringify(era)}: use "2026-07-28" or "2025-11-25"`);
  }
  if (era === "2026-07-28" && options.taskListPageSize !== undefined) {
    throw new EraOptionError(
      'taskListPageSize applies only to era "2025-11-25" (2026-07-28 has no tasks/list)',
    );
  }
  return era;
}
