export {
  operatorBackfillEvents,
  operatorBackfillOutbox,
  operatorChangeConversionStatus,
  operatorListConversions,
  operatorPruneEvents,
} from './operator.service';
export type { OperatorConversionsDeps } from './operator.service';
