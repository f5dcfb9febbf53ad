/**
 * Words quoted for a POSIX shell, for the command lines the command prints for you to paste (how to resume a
 * task, how to start a stdio server again). A task id or a URL comes from a server: unquoted, `;`, `&` or `$(…)`
 * in it would run when pasted. Quoting for display is one rule, so no package (`shell-quote` also parses).
 */

/** Letters, digits and the punctuation a shell never treats specially: such a word is printed as it is. */
const PLAIN = /^[\w@%+=:,./-]+$/;

/** `word` as one shell word: as it is when that is safe, else in single quotes (a `'` inside as `'\''`). */
export function shellWord(word: string): string {
  return PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A command line from its words, each quoted as needed. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}
