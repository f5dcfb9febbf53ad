/**
 * What the three bridges share, as one module: in the package it is built once (`dist/bridges/shared.js` and
 * `.cjs`) and imported by each bridge entry, so `handedOff(client)` sees the hand-offs of every bridge.
 */
export { finalStep, runCall, type CallSite, type FinalStep, type Step, type StatusStep } from "./call.js";
export { handedOff, type HandedOff, type HandedOffTask } from "./handed-off.js";
export type { BridgeInputContext, BridgeInputHandlers, BridgeOptions, BridgeUpdateEvent } from "./options.js";
export { isToolError, modelParts, resultText, type ModelPart } from "./output.js";
export { bridgedTools, type BridgedTool } from "./tools.js";
export type { BridgeHost, BridgeHostTool, BridgeTarget } from "./source.js";
