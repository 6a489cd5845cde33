import { Schema } from 'mongoose';

/**
 * The worker's Agenda collection (`jobs`). Agenda writes its documents; this schema exists only to
 * declare the indexes every query Agenda and the platform make of it needs, so `db:migrate` builds
 * them and services verify them (Agenda's own index creation is turned off).
 */
export const agendaJobSchema = new Schema({}, { strict: false, versionKey: false, autoIndex: false });
// Agenda's lookup of the next job to lock (name, then due time and priority): its own index, declared here.
agendaJobSchema.index({ name: 1, nextRunAt: 1, priority: -1, lockedAt: 1, disabled: 1 }, { name: 'findAndLockNextJobIndex' });
// The retry slot jobs' `unique({'data.slot'})` upsert (`{name, 'data.slot'}`).
agendaJobSchema.index({ name: 1, 'data.slot': 1 });
