/** Programs of the demo data that its first publisher has joined, as [program id, merchant id]: what seeded benches attribute to. */
export const DEMO_PROGRAMS = [
  [1001, 501],
  [1003, 502],
  [1005, 504],
  [1006, 505],
  [1011, 510],
] as const;
