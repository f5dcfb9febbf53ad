/**
 * The client's validators (generated: ./generated/validators.ts, on the kit of ./kit.ts), built on first use:
 * constructing some 150 schemas (0.15 ms on the kit, 1.3–1.9 ms on zod/mini before it) is work a process that never
 * gets an answer (or only prints its help) need not do.
 */
import { createValidators, type Validators } from "./generated/validators.js";

let built: Validators | undefined;

export function validators(): Validators {
  built ??= createValidators();
  return built;
}
