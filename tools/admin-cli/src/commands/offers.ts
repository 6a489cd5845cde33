/** Vouchers and deals (offers pilot): through the offers lib. */
import { operatorCreateOffer, operatorEndOffer, operatorListOffers } from '@cw/offers';
import { choice, int, mustProgram, str, url, UsageError, type CommandSpec } from './shared';

export const OFFERS_COMMANDS: Record<string, CommandSpec> = {
  'offer:create': {
    summary: 'Create a voucher or deal of a program in one country (offers pilot)',
    options: {
      program: { type: 'string', required: true, doc: 'program id' },
      type: { type: 'string', required: true, doc: 'voucher or deal' },
      title: { type: 'string', required: true, doc: 'shown to publishers' },
      code: { type: 'string', doc: 'the voucher code (vouchers only)' },
      country: { type: 'string', required: true, doc: 'ISO alpha-2' },
      url: { type: 'string', doc: "landing page (default: the program's)" },
      starts: { type: 'string', doc: 'start, ISO date or date-time (default: now)' },
      ends: { type: 'string', required: true, doc: 'end, ISO date or date-time' },
      description: { type: 'string', doc: 'longer text' },
      terms: { type: 'string', doc: 'conditions' },
    },
    run: async (deps, o) => {
      const program = await mustProgram(deps, int(o, 'program')!);
      const type = choice(o, 'type', ['voucher', 'deal'] as const)!;
      const country = str(o, 'country')!.toUpperCase();
      if (!/^[A-Z]{2}$/.test(country)) throw new UsageError(`--country: "${country}" is not an ISO alpha-2 country`);
      const when = (k: string, fallback?: Date) => {
        const v = str(o, k);
        if (v === undefined) return fallback!;
        const d = new Date(v);
        if (Number.isNaN(d.getTime())) throw new UsageError(`--${k} must be an ISO date or date-time, got "${v}"`);
        return d;
      };
      return operatorCreateOffer(deps, deps.operator, {
        programId: program._id,
        type,
        title: str(o, 'title')!,
        code: str(o, 'code'),
        country,
        landingUrl: url(str(o, 'url') ?? program.default_landing_url, 'url'),
        startsAt: when('starts', new Date()),
        endsAt: when('ends'),
        description: str(o, 'description'),
        terms: str(o, 'terms'),
      });
    },
  },
  'offer:list': {
    summary: 'List offers, newest first, with their state (running, future, expired, ended)',
    options: {
      program: { type: 'string', doc: 'only this program' },
      country: { type: 'string', doc: 'only this country' },
      limit: { type: 'string', doc: 'at most this many (default 100)' },
    },
    run: (deps, o) =>
      operatorListOffers(deps, deps.operator, { program: int(o, 'program'), country: str(o, 'country')?.toUpperCase(), limit: int(o, 'limit') }),
  },
  'offer:end': {
    summary: 'End a running or future offer now',
    options: { id: { type: 'string', required: true, doc: 'offer id' } },
    run: async (deps, o) => {
      if (!(await operatorEndOffer(deps, deps.operator, { id: str(o, 'id')! })))
        throw new UsageError(`offer ${str(o, 'id')} does not exist or has already ended`);
      return { id: str(o, 'id'), ended: true };
    },
  },
};
