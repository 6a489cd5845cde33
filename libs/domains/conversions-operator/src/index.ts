export { operatorBackfillEvents, operatorChangeConversionStatus, operatorListConversions, operatorPruneEvents } from './operator.service';
export type { OperatorConversionsDeps } from './operator.service';
