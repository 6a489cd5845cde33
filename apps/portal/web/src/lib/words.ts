/** Words for a snake_case value ("read_only" -> "Read only"); "—" for nothing. */
export const words = (v: string | null | undefined): string => {
  if (!v) return '—';
  const s = v.replace(/[_.]/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
};
