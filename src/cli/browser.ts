/**
 * Opening a server's link in the user's browser (an authorization page, a URL-mode elicitation). The URL comes
 * from a server, so it is checked before it is printed or opened: only `https:`, or `http:` to this machine
 * (loopback). Anything else (`file:`, `javascript:`, a custom scheme that starts some other program, plain
 * `http:` across the network) is refused. It is then opened without a shell: `$BROWSER`, `open` on macOS,
 * `rundll32 url.dll,FileProtocolHandler` on Windows (`cmd /c start` would read `&`, `|` and `^` in the URL as
 * commands), `xdg-open` on a Linux desktop.
 */
import { spawn } from "node:child_process";

const LOOPBACK_HOSTS = new Set(["localhost", "[::1]"]);

/** Why `text` is not a URL to show or open, or undefined when it is one. */
export function unsafeLink(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "it is not a URL";
  }
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return undefined;
  return url.protocol === "http:"
    ? "it is plain http:// to another machine (only https://, or http:// to this machine)"
    : `its scheme is ${url.protocol} (only https://, or http:// to this machine)`;
}

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Opens `url` (already accepted by `unsafeLink`) in the user's browser when there is one to open; does nothing
 * otherwise (the URL is on the screen). Never throws.
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): void {
  if (unsafeLink(url) !== undefined) return;
  const href = new URL(url).href; // as parsed: spaces and quotes percent-encoded
  let command: [string, string[]] | undefined;
  if (env.BROWSER) command = [env.BROWSER, [href]];
  else if (process.platform === "darwin") command = ["open", [href]];
  else if (process.platform === "win32") command = ["rundll32", ["url.dll,FileProtocolHandler", href]];
  else if (env.DISPLAY || env.WAYLAND_DISPLAY) command = ["xdg-open", [href]];
  if (command === undefined) return;
  try {
    const child = spawn(command[0], command[1], { stdio: "ignore", detached: true });
    child.on("error", () => undefined); // no browser after all: the URL is on the screen
    child.unref();
  } catch {
    // as above
  }
}
