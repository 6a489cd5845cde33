/**
 * What the CSV download shows while the file arrives: its rows counted exactly as the bytes come
 * (a line break inside a quoted cell is not a row, the header line is not one either, a chunk may
 * end anywhere), and the name the server gives the file.
 */
const QUOTE = 0x22;
const LF = 0x0a;

export interface CsvRowCounter {
  /** Counts a chunk's line ends; answers the rows so far (the header not counted). */
  add(chunk: Uint8Array): number;
}

export function csvRowCounter(): CsvRowCounter {
  let lines = 0;
  let quoted = false;
  return {
    add(chunk) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i];
        if (b === QUOTE) quoted = !quoted;
        else if (b === LF && !quoted) lines++;
      }
      return Math.max(0, lines - 1); // the header line is not a row
    },
  };
}

/** The file name of a `Content-Disposition: attachment; filename="…"`, else `fallback`. */
export const fileNameOf = (disposition: string | null, fallback: string): string => /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;
