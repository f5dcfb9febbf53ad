/**
 * Owner of how the servers of a host share one store. A stored ref names its server by the host's identity of
 * it, its config name and its URL (or its stdio command and arguments), never its place in the file, so a ref
 * resumes only on the server it was made on, even when two servers have one URL or one `serverInfo` name. Each
 * server's client sees the shared store through its own view: refs go in under the server's host identity and
 * come out naming the client's server as the client knows it. The host, not a client, opens and closes the store.
 */
import type { ConnectTarget, TaskRef } from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";

/** The scheme of the identity a host files its servers' refs under (`server.url` of a stored ref). */
const SCHEME = "mcp-tasks-host:";

/** What a host's identity of a server says: its config name and its URL or command. */
export interface HostedServer {
  /** The server's name in the host's config. */
  name: string;
  /** Its URL; its command and arguments as JSON (`["npx","-y","pkg"]`); or `"transport"` for an MCP transport. */
  target: string;
}

/** The host's identity of a server, as the `server.url` of its stored refs. */
export function hostIdentity(server: HostedServer): string {
  return `${SCHEME}${encodeURIComponent(server.name)}@${encodeURIComponent(server.target)}`;
}

/** The server a stored ref was filed under by a host, or undefined for a ref no host wrote. */
export function hostedServerOf(ref: TaskRef): HostedServer | undefined {
  const url = ref.server.url;
  if (url === undefined || !url.startsWith(SCHEME)) return undefined;
  const [name, target] = url.slice(SCHEME.length).split("@");
  if (name === undefined || target === undefined) return undefined;
  try {
    return { name: decodeURIComponent(name), target: decodeURIComponent(target) };
  } catch {
    return undefined;
  }
}

/** What identifies a target in the host's identity (see {@link HostedServer.target}). */
export function targetIdentity(target: ConnectTarget): string {
  if (typeof target === "string") return safeHref(target);
  if (target instanceof URL) return target.href;
  if ("command" in target && typeof target.command === "string") {
    return JSON.stringify([target.command, ...(target.args ?? [])]);
  }
  return "transport";
}

function safeHref(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/**
 * One server's view of the shared store. Methods the store lacks are left out, so the client treats the view
 * exactly as it would treat the store.
 */
export function hostedStore(store: TaskStore, server: HostedServer): TaskStore {
  const url = hostIdentity(server);
  const filed = (here: TaskRef["server"]): TaskRef["server"] => ({ ...here, url });
  const stored = (ref: TaskRef): TaskRef => ({ ...ref, server: filed(ref.server) });
  /** The client's server, as its last ref or listing named it: what refs coming out of the store name. */
  let known: TaskRef["server"] | undefined;
  const learn = (here: TaskRef["server"]): TaskRef["server"] => (known = here);
  const learnFrom = (ref: TaskRef): TaskRef => {
    known = ref.server;
    return ref;
  };
  const back = (ref: TaskRef, here: TaskRef["server"] | undefined): TaskRef =>
    here === undefined ? ref : { ...ref, server: here };
  const view: TaskStore = {
    put: (ref) => store.put(stored(learnFrom(ref))),
    remove: (ref) => store.remove(stored(ref)),
    async list(here) {
      if (here === undefined) return [];
      const refs = await store.list(filed(learn(here)));
      return refs.map((ref) => back(ref, here));
    },
    // The host opens and closes the shared store, once for all its servers.
    open: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  if (store.update) {
    const update = store.update.bind(store);
    view.update = (ref) => update(stored(ref));
  }
  if (store.release) {
    const release = store.release.bind(store);
    view.release = (ref) => release(stored(ref));
  }
  if (store.claim) {
    const claim = store.claim.bind(store);
    view.claim = async (ref) => {
      const claimed = await claim(stored(ref));
      return claimed === undefined ? undefined : back(claimed, learn(ref.server));
    };
  }
  if (store.claimLapsed) {
    const claimLapsed = store.claimLapsed.bind(store);
    view.claimLapsed = async (here) => {
      const refs = await claimLapsed(filed(learn(here)));
      return refs.map((ref) => back(ref, here));
    };
  }
  if (store.onLeaseLost) {
    const onLeaseLost = store.onLeaseLost.bind(store);
    view.onLeaseLost = (listener) =>
      onLeaseLost((ref) => {
        if (ref.server.url === url) listener(back(ref, known));
      });
  }
  if (store.fence) {
    const fence = store.fence.bind(store);
    view.fence = (ref) => fence(stored(ref));
  }
  return view;
}
