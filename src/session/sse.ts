/**
 * A reader for `text/event-stream` bodies (the WHATWG server-sent events format), small enough for the main
 * entry: lines end in CRLF, LF or CR; `data` lines join with "\n"; `id`, `event` and `retry` are kept; a blank
 * line dispatches the event. Web-standard APIs only (ReadableStream, TextDecoder), so it runs in every runtime.
 */

export interface SseEvent {
  /** The `event` field; undefined means "message". */
  event: string | undefined;
  data: string;
  /** The `id` field of this event, if it had one. */
  id: string | undefined;
}

export interface SseHandlers {
  onEvent(event: SseEvent): void;
  /** A `retry` field: the server's reconnection delay in milliseconds. */
  onRetry?(ms: number): void;
}

/** Reads `body` to its end, calling `handlers` per event. Rejects when the stream fails (or is aborted). */
export async function readSse(body: ReadableStream<Uint8Array>, handlers: SseHandlers): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  let first = true;

  const line = (text: string) => {
    if (text === "") {
      // An event with an id and no data still counts: servers prime a stream with one, to be resumable.
      if (data.length > 0 || id !== undefined) handlers.onEvent({ event, data: data.join("\n"), id });
      data = [];
      event = undefined;
      id = undefined;
      return;
    }
    if (text.startsWith(":")) return; // a comment (keep-alive)
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) handlers.onRetry?.(Number(value));
  };

  for (;;) {
    const { value, done } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    if (first && buffer.length > 0) {
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1); // a byte order mark
      first = false;
    }
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const code = buffer.charCodeAt(i);
      if (code !== 10 && code !== 13) continue;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk to know.
      if (code === 13 && i === buffer.length - 1 && !done) break;
      line(buffer.slice(start, i));
      if (code === 13 && buffer.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
    if (done) return; // an event without its closing blank line is dropped, as the format says
  }
}
