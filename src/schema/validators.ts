/**
 * The client's validators (zod/mini, generated: ./generated/validators.ts), built on first use: constructing
 * some 150 schemas is most of what importing the client would otherwise cost, and a process that never gets an
 * answer (or only prints its help) never pays it.
 */
import { createValidators, type Validators } from "./generated/validators.js";

let built: Validators | undefined;

export function validators(): Validators {
  built ??= createValidators();
  return built;
}
