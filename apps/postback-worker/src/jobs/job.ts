/** A job the worker registers with Agenda: its name, what it runs, and Agenda's options for it. */
export interface JobDefinition {
  name: string;
  run: (data: unknown) => Promise<void>;
  options?: {
    concurrency?: number;
    removeOnComplete?: boolean;
    lockLifetime?: number;
    /** The delay before retry `attempt` (1-based) of a failed run, or null: no more tries (Agenda's backoff). */
    backoff?: (ctx: { attempt: number }) => number | null;
  };
}
