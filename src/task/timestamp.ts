/**
 * Reads the ISO 8601 timestamps of task snapshots (`lastUpdatedAt`, `createdAt`) leniently. Servers differ in
 * offsets, fraction digits and separators; a timestamp we cannot read must never crash polling, so the answer
 * for anything unreadable is `NaN` and callers fall back to arrival order.
 */

// Date, then optional time (`T`, `t` or a space), fraction with `.` or `,`, then `Z` or an offset.
// Separators are optional so the basic format (`20260728T101500Z`) reads too.
const ISO_8601 =
  /^\s*([+-]?\d{4,6})-?(\d{2})-?(\d{2})(?:[Tt ](\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?\s*$/;

/**
 * Milliseconds since the epoch (fractions kept, so microsecond stamps still order), or `NaN` when the text is
 * not an ISO 8601 date-time. A time without a zone is read as UTC.
 */
export function parseTimestamp(text: unknown): number {
  if (typeof text !== "string") return Number.NaN;
  if (isPlainUtcStamp(text)) {
    // The form nearly every server sends (`2026-07-28T10:15:00.123Z`): the engine's own parser reads it exactly.
    const millis = Date.parse(text);
    if (!Number.isNaN(millis)) return millis;
  }
  const match = ISO_8601.exec(text);
  if (!match) return Number.NaN;
  const [
    ,
    year,
    month,
    day,
    hour = "0",
    minute = "0",
    second = "0",
    fraction,
    ,
    sign,
    offsetHours,
    offsetMinutes,
  ] = match;
  const fields = [Number(month), Number(day), Number(hour), Number(minute), Number(second)] as const;
  const [m, d, h, min, s] = fields;
  if (m < 1 || m > 12 || d < 1 || d > 31 || h > 24 || min > 59 || s > 60) return Number.NaN;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 onto the 1900s.
  date.setUTCFullYear(Number(year), m - 1, d);
  date.setUTCHours(h, min, s, 0);
  let millis = date.getTime();
  if (fraction !== undefined) millis += Number(`0.${fraction}`) * 1000;
  if (sign !== undefined) {
    const offset = (Number(offsetHours) * 60 + Number(offsetMinutes ?? "0")) * 60_000;
    millis += sign === "+" ? -offset : offset;
  }
  return millis;
}

/** `YYYY-MM-DDTHH:MM:SS` in UTC (`Z`), with at most millisecond digits: nothing `Date.parse` could misread. */
function isPlainUtcStamp(text: string): boolean {
  const length = text.length;
  return (
    (length === 20 || (length >= 22 && length <= 24 && text[19] === ".")) &&
    text[10] === "T" &&
    text[length - 1] === "Z" &&
    text[4] === "-"
  );
}
