/** A `$regex` source matching `text` literally (user text never acts as a pattern). */
export function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
