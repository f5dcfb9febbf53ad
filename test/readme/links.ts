/**
 * The links of the README and the guides, checked without the network: every relative link must name a file or
 * folder of the repository, and every `#anchor` (alone, or after a `.md` path) must be a heading of the target
 * page, slugged as GitHub slugs it (github-slugger, with its `-1`, `-2` for repeated headings), or an explicit
 * `<a id="…">` / `<a name="…">`. Links to other sites (`https:`, `mailto:` …) are not followed. Text inside code
 * (fenced blocks and inline code spans) is not markdown, so links there are not links.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import GithubSlugger from "github-slugger";

/** A link that does not resolve, with where it is written. */
export interface BrokenLink {
  /** `<document>:<line>`, the document relative to the root. */
  at: string;
  target: string;
  problem: string;
}

/** A fence opener or closer: up to three spaces (more inside list items), then ``` or ~~~. */
const FENCE = /^\s*(`{3,}|~{3,})/;
/** The destination of an inline link or image, `](dest)` or `](dest "title")`. */
const INLINE_LINK = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
/** A reference definition, `[label]: dest`. */
const REFERENCE = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/;
/** An explicit anchor in HTML. */
const HTML_ANCHOR = /<a\s+(?:[^>]*?\s)?(?:id|name)="([^"]+)"/g;
const HTML_HREF = /<a\s+(?:[^>]*?\s)?href="([^"]+)"/g;
const ATX_HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

interface Line {
  number: number;
  /** The line with inline code spans blanked, or undefined inside a fenced block. */
  text: string;
  /** The line as written (headings keep their code spans' text). */
  raw: string;
}

/** The lines of a markdown text that are markdown, not code. */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split("\n").forEach((raw, index) => {
    const opener = FENCE.exec(raw)?.[1];
    if (fence !== undefined) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      return;
    }
    if (opener !== undefined) {
      fence = opener;
      return;
    }
    lines.push({
      number: index + 1,
      raw,
      text: raw.replace(/(`+)[^`]*?\1/g, (span) => " ".repeat(span.length)),
    });
  });
  return lines;
}

/** What GitHub shows of a heading's inline markdown: code spans' text, links' text, no emphasis or tags. */
function headingText(markdown: string): string {
  return markdown
    .replace(/<[^>]+>/g, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`+([^`]*?)`+/g, "$1")
    .replace(/\*+/g, "");
}

/** The anchors a markdown text defines: its headings' GitHub slugs and its explicit `<a id>` / `<a name>`. */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = ATX_HEADING.exec(line.raw);
    if (heading) anchors.add(slugger.slug(headingText(heading[2] ?? "")));
    for (const match of line.raw.matchAll(HTML_ANCHOR)) anchors.add(match[1]!);
  }
  return anchors;
}

/** Every link destination a markdown text writes, with its line. */
export function linksOf(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  for (const line of proseLines(markdown)) {
    for (const match of line.text.matchAll(INLINE_LINK)) links.push({ line: line.number, target: match[1]! });
    for (const match of line.text.matchAll(HTML_HREF)) links.push({ line: line.number, target: match[1]! });
    const reference = REFERENCE.exec(line.text)?.[1];
    if (reference !== undefined) links.push({ line: line.number, target: reference });
  }
  return links;
}

/**
 * Checks the links of `documents` (paths relative to `root`) against the files under `root`. Returns every
 * link that does not resolve; an empty list when all do.
 */
export function checkLinks(root: string, documents: readonly string[]): BrokenLink[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let anchors = anchorCache.get(file);
    if (anchors === undefined) {
      anchors = anchorsOf(readFileSync(file, "utf8"));
      anchorCache.set(file, anchors);
    }
    return anchors;
  };
  const broken: BrokenLink[] = [];
  for (const document of documents) {
    const source = resolve(root, document);
    for (const { line, target } of linksOf(readFileSync(source, "utf8"))) {
      if (EXTERNAL.test(target)) continue;
      const report = (problem: string) => broken.push({ at: `${document}:${line}`, target, problem });
      const hash = target.indexOf("#");
      const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const file = path === "" ? source : resolve(dirname(source), path);
      const inside = relative(root, file);
      if (inside.startsWith(`..${sep}`) || inside === "..") {
        report("points outside the repository");
        continue;
      }
      if (!existsSync(file)) {
        report(`no such file: ${inside}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(file).isDirectory() || !file.endsWith(".md")) {
        report(`an anchor into ${inside}, which is not a markdown page`);
        continue;
      }
      if (!anchorsIn(file).has(anchor)) report(`no heading or <a id> "${anchor}" in ${inside}`);
    }
  }
  return broken;
}
