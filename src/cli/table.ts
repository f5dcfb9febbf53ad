/** Owns the command's tables (`ls`, `servers`): aligned columns, every cell kept on its line. */
import { oneLine } from "./terminal-text.js";

/** Rows in aligned columns; every cell is kept on its line (a server's text cannot add rows). */
export function table(cells: string[][]): string {
  const rows = cells.map((row) => row.map(oneLine));
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join("  "),
    )
    .join("\n")
    .concat("\n");
}
