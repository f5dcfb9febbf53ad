/**
 * docs/architecture.md stays true to the code it describes: every design decision a source comment cites
 * ("decision 12", "DESIGN decisions 12 and 15") has its numbered heading there, no comment under src/ or
 * scripts/ cites a tracker number instead, and the imports between the folders of src/ go the page's one way,
 * except for exactly the exceptions it lists.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importReport } from "../../scripts/import-layers.js";
import { ROOT } from "./snippets.js";

const PAGE = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((path) => /\.(ts|mts|mjs|js)$/.test(path) && !path.split(/[\\/]/).includes("generated"))
    .map((path) => join(dir, path));
}

/** `path:line` → the decision numbers cited on that line. */
function citedDecisions(dirs: string[]): Map<string, number[]> {
  const cited = new Map<string, number[]>();
  for (const file of dirs.flatMap(sources)) {
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .forEach((line, index) => {
        for (const match of line.matchAll(/\bdecisions? (\d+(?:(?:, *| and | or )\d+)*)/gi)) {
          const numbers = (match[1] as string).split(/, *| and | or /).map(Number);
          cited.set(`${file}:${index + 1}`, [...(cited.get(`${file}:${index + 1}`) ?? []), ...numbers]);
        }
      });
  }
  return cited;
}

/** Whether the page has a heading for decision `n` (`### Decision 12: …`, or a heading that starts `12.`). */
function hasHeading(n: number): boolean {
  return new RegExp(`^#+ *(decision *)?${n}[.:) ]`, "im").test(PAGE);
}

/** The `from → to` pairs the page's "Known exceptions" list names. */
function listedExceptions(): string[] {
  const section = /^### Known exceptions\n([\s\S]*?)(?=^#)/m.exec(PAGE)?.[1] ?? "";
  return [...section.matchAll(/^- `(\w+) → (\w+)`/gm)].map((match) => `${match[1]} → ${match[2]}`).sort();
}

describe("docs/architecture.md", () => {
  it("has a numbered heading for every decision a source comment cites", () => {
    const cited = citedDecisions(["src", "scripts", "test", "bench"]);
    const unresolved = [...cited]
      .filter(([, numbers]) => numbers.some((n) => !hasHeading(n)))
      .map(([at, numbers]) => `${at}: decision ${numbers.join(", ")}`);
    expect(unresolved).toEqual([]);
  });

  it("numbers its decisions 1, 2, 3 … in order, each once", () => {
    const numbers = [...PAGE.matchAll(/^### Decision (\d+): \S/gm)].map((match) => Number(match[1]));
    expect(numbers.length).toBeGreaterThanOrEqual(18);
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
  });

  it("is cited by no source comment that names a tracker number instead", () => {
    const tracker = /\b(issues?|items?|defects?) #?\d+/i;
    const found: string[] = [];
    for (const file of [...sources("src"), ...sources("scripts")]) {
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (tracker.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });

  it("lists exactly the imports between folders of src/ that go against the direction", () => {
    const { against, unplaced } = importReport();
    expect(unplaced).toEqual([]);
    expect(against.map(({ from, to }) => `${from} → ${to}`).sort()).toEqual(listedExceptions());
  });

  it("finds what it checks: a cited decision, a tracker number and an upward import are all recognized", () => {
    // The readers above must not pass by seeing nothing.
    expect(citedDecisions(["src"]).size).toBeGreaterThan(5);
    expect(hasHeading(12)).toBe(true);
    expect(hasHeading(999)).toBe(false);
    expect(listedExceptions()).toContain("session → auth");
    expect("see issue 26 item 10").toMatch(/\b(issues?|items?|defects?) #?\d+/i);
  });
});
