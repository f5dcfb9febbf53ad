/**
 * The smoke scenario as a Cloudflare Worker (workerd): `GET /?server=<url>` runs it inside the request and
 * answers with the report as JSON (or `{ error }`). No store: a Worker has no file system the file store uses. A
 * one-file bundle passes the output validator itself.
 */
import { jsonSchemaValidator } from "mcp-tasks/json-schema";
import { runSmoke } from "./smoke.mjs";

export default {
  async fetch(request) {
    const url = new URL(request.url).searchParams.get("server");
    if (url === null) return new Response(null, { status: 204 }); // the harness asking whether workerd is up
    try {
      return Response.json(await runSmoke({ url, validateOutput: jsonSchemaValidator, bundledCheck: true }));
    } catch (error) {
      return Response.json({ error: String((error && error.stack) || error) });
    }
  },
};
