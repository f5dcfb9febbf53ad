/**
 * What the main entry's `TaskHost` loads on first use (dist/host/loaded.js, no public entry): the host, and the
 * seam through which it is handed the core it runs on. Owns nothing else.
 */
export { TaskHost } from "./task-host.js";
export { provideCore } from "./core.js";
