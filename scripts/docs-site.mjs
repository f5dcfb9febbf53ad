/**
 * What the docs site (typedoc.config.mjs) is built from, and the TypeDoc plugin that makes it read as one site:
 * - the API reference covers every entry of package.json "exports", found there, so a new entry cannot be
 *   left out;
 * - the guides come in the order of the table in docs/README.md, and a guide missing from it fails the build;
 * - a guide's title is its first heading, and its heading anchors are GitHub's (code spans kept as text), so the
 *   links written for GitHub work on the site;
 * - a code span in a guide or a doc comment that names an exported symbol (`TaskClient`, `TaskClient.connect`,
 *   `fileStore()`, `client.close()`) links to its API page; on GitHub and in editors it stays plain code;
 * - every export, and every method and accessor of an exported class, has a doc comment (a warning, which fails
 *   the build, names each one that has none).
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Application, Converter, ReflectionKind, RendererEvent } from "typedoc";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const at = (path) => `${ROOT}${path}`;

/**
 * The public entries: package name + subpath → source file. tsup builds dist/<path>.js from src/<path>.ts
 * (tsup.config.ts), so the source is found from the built file's path.
 */
export function publicEntries() {
  const { name, exports } = JSON.parse(readFileSync(at("package.json"), "utf8"));
  const sources = tsupEntries();
  const entries = [];
  for (const [subpath, conditions] of Object.entries(exports)) {
    const built = conditions?.import?.default;
    if (typeof built !== "string" || !built.endsWith(".js")) continue; // ./package.json
    const source = sources.get(built.replace(/^\.\/dist\//, "").replace(/\.js$/, ""));
    if (source === undefined || !existsSync(at(source))) {
      throw new Error(
        `docs: package.json exports ${subpath} from ${built}, which no entry of tsup.config.ts builds`,
      );
    }
    entries.push({ module: subpath === "." ? name : `${name}/${subpath.slice(2)}`, source });
  }
  return entries;
}

/**
 * The public entries tsup builds, output name to source (`"store/redis"` → `src/store/redis.ts`), read from
 * tsup.config.ts's `publicEntries` so that an entry whose source lives in its concern's folder is found too.
 */
function tsupEntries() {
  const config = readFileSync(at("tsup.config.ts"), "utf8");
  const block = /const publicEntries = \{([^}]*)\}/.exec(config);
  if (block === null) throw new Error("docs: no publicEntries in tsup.config.ts");
  const pairs = block[1].matchAll(/^\s*"?([\w/-]+)"?:\s*"(src\/[^"]+\.ts)"/gm);
  return new Map([...pairs].map((pair) => [pair[1], pair[2]]));
}

/** docs/README.md first, then every guide in the order its table lists them. */
export function guidesInOrder() {
  const listed = [
    ...readFileSync(at("docs/README.md"), "utf8").matchAll(/\]\(([a-z0-9-]+\.md)(?:#[^)]*)?\)/g),
  ].map((match) => match[1]);
  const order = [...new Set(listed)];
  const missing = readdirSync(at("docs"))
    .filter((file) => file.endsWith(".md") && file !== "README.md" && !order.includes(file))
    .sort();
  if (missing.length > 0) {
    throw new Error(`docs: ${missing.join(", ")} not linked from the table in docs/README.md`);
  }
  return ["docs/README.md", ...order.map((file) => `docs/${file}`)];
}

/**
 * TypeDoc slugs a heading from its text tokens only, so `## Answering with \`respond\`` would lose its last
 * word. Giving each code span in a heading a text child (which its renderer ignores) makes the slug GitHub's.
 */
export function keepCodeInHeadingSlugs(parser) {
  parser.core.ruler.push("code-in-heading-slugs", (state) => {
    state.tokens.forEach((token, index) => {
      if (token.type !== "inline" || state.tokens[index - 1]?.type !== "heading_open") return;
      for (const child of token.children ?? []) {
        if (child.type !== "code_inline") continue;
        const text = new state.Token("text", "", 0);
        text.content = child.content;
        child.children = [text];
      }
    });
  });
}

const LINKABLE =
  ReflectionKind.Class |
  ReflectionKind.Interface |
  ReflectionKind.TypeAlias |
  ReflectionKind.Function |
  ReflectionKind.Variable;

/** `Name`, `Name()`, `Name.member` or `Name.member()`: the code spans that may name an export. */
const SYMBOL_SPAN = /^`([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?(?:\(\))?`$/;

/** The names the guides give the objects they hold: `client.callTool()` is `TaskClient.callTool`. */
const INSTANCE_NAMES = { client: "TaskClient", handle: "TaskHandle", server: "HttpTaskServer" };

/** The exported declarations by name; where two entries export one name, the first entry's wins. */
function exportsByName(project) {
  const byName = new Map();
  for (const module of project.children ?? []) {
    for (const child of module.children ?? []) {
      if (child.kindOf(LINKABLE) && !byName.has(child.name)) byName.set(child.name, child);
    }
  }
  for (const [instance, type] of Object.entries(INSTANCE_NAMES)) {
    if (byName.has(type)) byName.set(instance, { instanceOf: byName.get(type) });
  }
  return byName;
}

/** Whether the code span at `index` is the text of a markdown link or sits in a heading: it stays as it is. */
function insideLinkOrHeading(parts, index) {
  const next = parts[index + 1];
  if (next?.kind === "text" && /^[^[\]\n]*\]\(/.test(next.text)) return true;
  const previous = parts[index - 1];
  return previous?.kind === "text" && /(^|\n) {0,3}#{1,6} [^\n]*$/.test(previous.text);
}

function linkSymbols(parts, byName) {
  return parts.map((part, index) => {
    if (part.kind !== "code") return part;
    const match = SYMBOL_SPAN.exec(part.text);
    const found = match && byName.get(match[1]);
    if (!found || insideLinkOrHeading(parts, index)) return part;
    // `client` alone is a variable, not the class: only its members link.
    if (found.instanceOf && match[2] === undefined) return part;
    const owner = found.instanceOf ?? found;
    const member = match[2] === undefined ? owner : owner.getChildByName(match[2]);
    if (!member) return part;
    return { kind: "inline-tag", tag: "@linkcode", text: part.text.slice(1, -1), target: member };
  });
}

/**
 * `mcp-tasks/schema` is left out: its Zod schemas are generated (`npm run generate:schemas`) and its released
 * types are frozen by schema/manifest.json; each schema is documented by the type of the same name.
 */
const UNCHECKED_MODULES = new Set(["mcp-tasks/schema"]);

const CLASS_MEMBERS = ReflectionKind.Method | ReflectionKind.Accessor;

function documented(reflection) {
  const signatures = [
    ...(reflection.signatures ?? []),
    reflection.getSignature,
    reflection.setSignature,
  ].filter(Boolean);
  return reflection.hasComment() || signatures.some((signature) => signature.hasComment());
}

/** The exports, and the methods and accessors of exported classes, that have no doc comment. */
export function undocumented(project) {
  const missing = [];
  for (const module of project.children ?? []) {
    if (UNCHECKED_MODULES.has(module.name)) continue;
    for (const child of module.children ?? []) {
      if (!child.kindOf(LINKABLE)) continue;
      if (!documented(child)) missing.push(child);
      if (!child.kindOf(ReflectionKind.Class)) continue;
      for (const member of child.children ?? []) {
        if (member.kindOf(CLASS_MEMBERS) && !member.inheritedFrom && !documented(member))
          missing.push(member);
      }
    }
  }
  return missing;
}

/** TypeDoc plugin entry. */
export function load(app) {
  // A page's path comes from its name: the file's name (docs/calling-tools.md is documents/calling-tools.html),
  // and a README.md's folder (docs/README.md is documents/docs.html, bench/README.md documents/bench.html).
  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
    const path = app.files.getReflectionPath(document);
    if (path === undefined) return;
    const file = basename(path, ".md");
    document.name = file === "README" ? basename(dirname(path)) : file;
  });
  // Once the pages have their paths (from the file names: documents/calling-tools.html), before anything
  // shows a name: the sidebar, page titles and search show the guide's title.
  app.renderer.on(
    RendererEvent.BEGIN,
    (event) => {
      for (const document of event.project.getReflectionsByKind(ReflectionKind.Document)) {
        const first = document.content.find((part) => part.kind === "text");
        const title = /^# (.+)$/m.exec(first?.text ?? "")?.[1];
        if (title) document.name = title.trim();
      }
    },
    100,
  );
  app.on(Application.EVENT_VALIDATE_PROJECT, (project) => {
    for (const reflection of undocumented(project)) {
      app.logger.warn(`${reflection.getFriendlyFullName()} has no doc comment`);
    }
  });
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    const project = context.project;
    const byName = exportsByName(project);
    if (project.readme) project.readme = linkSymbols(project.readme, byName);
    for (const document of project.getReflectionsByKind(ReflectionKind.Document)) {
      document.content = linkSymbols(document.content, byName);
    }
    // The doc comments too: `TaskHandle` in TaskClient's summary leads to TaskHandle's page.
    for (const reflection of Object.values(project.reflections)) {
      const comments = [
        reflection.comment,
        ...(reflection.signatures ?? []).map((signature) => signature.comment),
      ];
      for (const comment of comments.filter(Boolean)) {
        comment.summary = linkSymbols(comment.summary, byName);
        for (const tag of comment.blockTags) tag.content = linkSymbols(tag.content, byName);
      }
    }
  });
}
