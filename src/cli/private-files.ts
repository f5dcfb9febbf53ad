/**
 * The command's own files are private: directories 0700, files 0600, owned by the user running it. Its task
 * store holds task ids, server URLs (query-string keys included) and input answers the user typed; its
 * credentials directory holds OAuth tokens. Another local user must not read them, nor plant a file that the
 * command would then trust. POSIX only: on Windows, modes and owners are not what protects a file (ACLs on the
 * user's profile are), and these checks are skipped.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from "node:fs";

const checked = process.platform !== "win32" && typeof process.getuid === "function";

/** Permission bits that let the group or others in. */
const SHARED = 0o077;

/** A directory or file the command will not use, and why. */
export class NotPrivateError extends Error {
  override readonly name = "NotPrivateError";
}

/**
 * Creates `dir` (and missing parents) as 0700, or makes an existing one private: a directory of this user that
 * others may enter is narrowed to 0700 (`onTightened` hears of it); one of another user is refused. Symbolic
 * links are followed: where the directory lives is the user's choice.
 */
export function privateDirectory(dir: string, onTightened?: (was: number) => void): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!checked) return;
  const stats = statSync(dir);
  if (!stats.isDirectory()) throw new NotPrivateError(`${dir} is not a directory`);
  if (stats.uid !== process.getuid?.()) {
    throw new NotPrivateError(
      `${dir} belongs to another user (uid ${stats.uid}); mcp-tasks keeps its files private`,
    );
  }
  if ((stats.mode & SHARED) !== 0) {
    chmodSync(dir, 0o700);
    onTightened?.(stats.mode & 0o777);
  }
}

/**
 * The text of `path`, if it is this user's private file: a regular file (a symbolic link is refused, not
 * followed), owned by this user, that nobody else may read or write. Undefined when there is no such file;
 * `NotPrivateError` saying what is wrong otherwise. The checks are made on the opened file, so it cannot be
 * swapped between the check and the read.
 */
export function readPrivateFile(path: string): string | undefined {
  let fd: number;
  try {
    // Not following a link; not blocking on a FIFO planted in the file's place (fstat then refuses it).
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw new NotPrivateError(`${path} is a symbolic link`);
    throw error;
  }
  try {
    const problem = checked ? problemWith(fstatSync(fd)) : undefined;
    if (problem !== undefined) throw new NotPrivateError(`${path}: ${problem}`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

function problemWith(stats: Stats): string | undefined {
  if (!stats.isFile()) return "not a regular file";
  if (stats.uid !== process.getuid?.()) return `it belongs to another user (uid ${stats.uid})`;
  if ((stats.mode & SHARED) !== 0) return `others may read or change it (mode ${mode(stats.mode)}, not 0600)`;
  return undefined;
}

/**
 * Writes `text` to `path` as a private file: a new temporary file (0600, never an existing one), renamed over
 * `path`, so a reader sees the old file or the new one, and a symbolic link at `path` is replaced, not followed.
 */
export function writePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: "wx" });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** A mode as four octal digits (`0644`). */
export function mode(bits: number): string {
  return `0${(bits & 0o777).toString(8).padStart(3, "0")}`;
}
