/**
 * Every relative link and `#anchor` of README.md and the guides under docs/ resolves (see links.ts for the
 * rules). No network: links to other sites are left alone. The checker is shown failing on a sample of its own.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { anchorsOf, checkLinks } from "./links.js";
import { ROOT, documentPaths } from "./snippets.js";

describe("the links of README.md and docs/", () => {
  it("all resolve: files exist, anchors are headings or <a id> of their page", () => {
    const pages = documentPaths();
    expect(pages).toContain("docs/README.md");
    expect(checkLinks(ROOT, pages)).toEqual([]);
  });
});

describe("the link checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-links-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "docs"));
  writeFileSync(
    join(dir, "docs/guide.md"),
    [
      "# A guide",
      "",
      "## Both generations: `era`",
      "",
      "## Runtimes, bundle size and start-up",
      "",
      "## Runtimes, bundle size and start-up",
      "",
      '<a id="kept-anchor"></a>',
      "",
      "Back to [the start](../README.md#start) and [here](#both-generations-era).",
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "README.md"),
    [
      "# Start",
      "",
      "[ok](docs/guide.md#runtimes-bundle-size-and-start-up-1) [ok](docs/guide.md#kept-anchor) [ok](docs/)",
      "[site](https://example.com/missing) [`code`](docs/guide.md)",
      "[no file](docs/missing.md) and [no anchor](docs/guide.md#era)",
      "[no local anchor](#nowhere) [outside](../elsewhere.md)",
      "",
      "[ref]: docs/gone.md",
      "",
      "```md",
      "[in a fence](docs/not-checked.md)",
      "```",
      "",
      "Inline code is not a link: `[x](docs/not-checked.md)`.",
    ].join("\n"),
  );

  it("slugs headings as GitHub does: code spans kept as text, punctuation dropped, repeats numbered", () => {
    expect([
      ...anchorsOf("# A\n## Both generations: `era`\n## X, y\n## X, y\n```\n# not a heading\n```"),
    ]).toEqual(["a", "both-generations-era", "x-y", "x-y-1"]);
  });

  it("reports a missing file, a missing anchor and a link out of the repository, with their lines", () => {
    expect(checkLinks(dir, ["README.md", "docs/guide.md"])).toEqual([
      { at: "README.md:5", target: "docs/missing.md", problem: "no such file: docs/missing.md" },
      {
        at: "README.md:5",
        target: "docs/guide.md#era",
        problem: 'no heading or <a id> "era" in docs/guide.md',
      },
      { at: "README.md:6", target: "#nowhere", problem: 'no heading or <a id> "nowhere" in README.md' },
      { at: "README.md:6", target: "../elsewhere.md", problem: "points outside the repository" },
      { at: "README.md:8", target: "docs/gone.md", problem: "no such file: docs/gone.md" },
    ]);
  });
});
