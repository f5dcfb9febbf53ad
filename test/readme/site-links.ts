/**
 * The links of the built docs site (docs/dist), checked on the files: every relative `href` and `src` of every
 * page must name a file of the site, and every `#anchor` an `id` (or `name`) in its target. One pass of regular
 * expressions over the output, so the whole site (some 500 pages) is checked in well under a second. Links to
 * other sites are not followed.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** A link of the site that does not resolve. */
export interface BrokenSiteLink {
  /** The page, relative to the site's root. */
  page: string;
  target: string;
  problem: string;
}

const LINK = /\s(?:href|src)="([^"]*)"/g;
const ANCHOR = /\s(?:id|name)="([^"]*)"/g;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((path) => join(dir, path))
    .filter((path) => statSync(path).isFile());
}

function decodeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Checks every `.html` page under `root`. Returns the links that do not resolve; an empty list when all do. */
export function checkSiteLinks(root: string): BrokenSiteLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let anchors = anchorCache.get(file);
    if (anchors === undefined) {
      const text = readFileSync(file, "utf8");
      anchors = new Set([...text.matchAll(ANCHOR)].map((match) => decodeAttribute(match[1]!)));
      anchorCache.set(file, anchors);
    }
    return anchors;
  };
  const broken: BrokenSiteLink[] = [];
  for (const file of filesUnder(root).filter((path) => path.endsWith(".html"))) {
    const page = relative(root, file);
    for (const match of readFileSync(file, "utf8").matchAll(LINK)) {
      const target = decodeAttribute(match[1]!);
      if (EXTERNAL.test(target)) continue;
      const report = (problem: string) => broken.push({ page, target, problem });
      const hash = target.indexOf("#");
      const path = decodeURIComponent((hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, ""));
      const anchor = hash === -1 ? "" : decodeURIComponent(target.slice(hash + 1));
      let linked = path === "" ? file : resolve(dirname(file), path);
      const inside = relative(root, linked);
      if (inside.startsWith(`..${sep}`) || inside === "..") {
        report("points outside the site");
        continue;
      }
      if (existsSync(linked) && statSync(linked).isDirectory()) linked = join(linked, "index.html");
      if (!existsSync(linked)) {
        report(`no such file: ${relative(root, linked)}`);
        continue;
      }
      if (anchor !== "" && !anchorsIn(linked).has(anchor)) {
        report(`no id "${anchor}" in ${relative(root, linked)}`);
      }
    }
  }
  return broken;
}
