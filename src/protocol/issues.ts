/**
 * Words for a validation failure. The client's validators (src/schema/kit.ts, zod/mini's API) carry no message
 * texts (they would weigh more than the validators); these name the first issue's path and what was expected
 * there, from the schema alone, so no server value (which may quote a task id) reaches a message.
 */

/** The part of an issue read here (the kit's, full Zod's and zod/mini's issues all have it). */
interface Issue {
  readonly path: readonly PropertyKey[];
  readonly code?: string;
  readonly message: string;
  readonly expected?: string;
  readonly values?: readonly unknown[];
}

/** The first issue as `path: what was expected`, with a count of the others. */
export function describeIssues(error: { readonly issues: readonly Issue[] }, countOthers = false): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
  const more = countOthers && error.issues.length > 1 ? ` and ${error.issues.length - 1} more` : "";
  return `${path}: ${issueText(issue)}${more}`;
}

function issueText(issue: Issue): string {
  if (issue.code === "invalid_type" && issue.expected !== undefined) return `expected ${issue.expected}`;
  if (issue.code === "invalid_value" && issue.values !== undefined) {
    return `expected ${issue.values.map((value) => JSON.stringify(value)).join(" or ")}`;
  }
  if (issue.code === "invalid_union") return "matches none of the allowed shapes";
  if (issue.code === "too_small") return "too small";
  return issue.message;
}
