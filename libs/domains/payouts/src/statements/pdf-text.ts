/**
 * Text as the statement PDF's standard font can draw it. pdfkit's standard fonts (Helvetica) are
 * WinAnsi-encoded: Latin-1 and a few more (€ – — ‘ ’ “ ” • …). A character outside that set is
 * written without its diacritics when it has them (Ł → L, ő → o, ș → s), ligatures spelled out,
 * and anything else (Greek, Cyrillic, CJK, emoji) as "?". Control and bidi characters are dropped.
 * The statement's JSON keeps every name as given.
 */

/** Unicode characters WinAnsi (Windows-1252) has beyond Latin-1. */
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Letters that do not decompose into a base letter and marks. */
const FOLDS: Record<string, string> = {
  Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Ŀ: 'L', ŀ: 'l', Ŋ: 'N', ŋ: 'n', Ŧ: 'T', ŧ: 't', Ɓ: 'B', ƀ: 'b',
  Ĳ: 'IJ', ĳ: 'ij', ſ: 's', ẞ: 'SS', ﬀ: 'ff', ﬁ: 'fi', ﬂ: 'fl', ﬃ: 'ffi', ﬄ: 'ffl', '\u2212': '-', '\u2010': '-', '\u2011': '-',
}; // prettier-ignore

const drawable = (ch: string): boolean => {
  const c = ch.codePointAt(0)!;
  return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || WIN_ANSI_EXTRA.has(ch);
};

/** `s` in the characters the PDF's font can draw (see above). */
export function pdfText(s: string): string {
  let out = '';
  for (const ch of s.normalize('NFC')) {
    if (drawable(ch)) {
      out += ch;
      continue;
    }
    const c = ch.codePointAt(0)!;
    // Line breaks and other spaces: a space (a name stays on one line); control and format (bidi, zero-width) characters: dropped.
    if (/\s/u.test(ch)) {
      out += ' ';
      continue;
    }
    if (c < 0x20 || (c >= 0x7f && c < 0xa0) || /\p{Cf}/u.test(ch)) continue;
    if (FOLDS[ch]) {
      out += FOLDS[ch];
      continue;
    }
    const base = ch.normalize('NFKD').replace(/\p{M}/gu, '');
    out += base && [...base].every(drawable) ? base : '?';
  }
  return out;
}
