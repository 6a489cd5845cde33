export { startEmbeddedMongo } from './server';
export type { EmbeddedMongo, EmbeddedMongoOptions } from './server';
export { Engine } from './engine';
export type { EngineOptions } from './engine';
export type { Change } from './collection';
export { compareValues, valuesEqual, sumValues } from './bson-values';
