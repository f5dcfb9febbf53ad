import { TaskClient } from "/work/wt-serverreq11/src/index.js";
const entry = "/work/wt-serverreq11/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const client = await TaskClient.connect({ command: process.execPath, args: [entry, "stdio"] }, {
  logger: console,
  inputHandlers: {
    roots: async (_p, ctx) => { console.log("roots ctx", ctx.taskId, ctx.key, ctx.toolName); return { roots: [{ uri: "file:///tmp/project", name: "project" }] }; },
    elicitation: async (p, ctx) => { console.log("elicit", p.message, ctx.key); return { action: "accept", content: { name: "Ada" } }; },
    sampling: async (p) => ({ role: "assistant", content: { type: "text", text: "sampled!" }, model: "fake" }),
  },
});
console.log(client.server);
for (const [name, args] of [["get-roots-list", {}], ["trigger-elicitation-request", {}], ["trigger-sampling-request", { prompt: "hi" }]] as const) {
  const r = await client.callTool(name, args as never);
  console.log(name, JSON.stringify(r.content).slice(0, 300));
}
await client.close();
