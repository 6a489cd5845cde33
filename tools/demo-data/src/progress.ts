/** A one-line progress bar on stderr (plain lines when not a terminal). */
export function progressBar(label: string): (done: number, total: number) => void {
  let lastPct = -1;
  return (done, total) => {
    const pct = Math.floor((done / total) * 100);
    if (pct === lastPct) return;
    lastPct = pct;
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round((pct / 100) * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(pct).padStart(3)}% ${done}/${total}`);
      if (done >= total) process.stderr.write('\n');
    } else if (pct % 10 === 0) {
      process.stderr.write(`${label} ${pct}% ${done}/${total}\n`);
    }
  };
}
