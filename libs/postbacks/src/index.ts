export {
  getPostbackConfig,
  POSTBACK_INPUT,
  postbackView,
  putPostbackConfig,
  READ_POSTBACK_POLICY,
  rotatePostbackSecret,
  ROTATION_OVERLAP_MS,
  WRITE_POSTBACK_POLICY,
} from './config.service';
export { newSigningSecret, open, seal, sealedWithOlderKey } from './secret-box';
export type { SealedSecret } from './secret-box';
export { MACROS, validateTarget } from './target';
export type { Macro, Resolver } from './target';
export { signature, signatures } from './signing';
export { attemptDelivery, createDeliveryAgent, DELIVERY_TIMEOUT_MS, expandMacros, USER_AGENT } from './delivery';
export type { Attempt, SaleEventBody } from './delivery';
export { MAX_ATTEMPTS, retryDelayMs, retrySlot } from './retry';
export { OUTBOX_BATCH, deliveryIdOf, publishPendingEvents } from './outbox';
export { attemptNow, createDispatcher, leaseMs, pauseMs, send, type Dispatcher, type DispatcherOptions, type PassKind, type SendOptions } from './dispatch';
export { expiresAt } from './retention';
export {
  DELIVERIES_INPUT,
  DELIVERIES_POLICY,
  deliveryView,
  listDeliveries,
  redeliver,
  REDELIVER_POLICY,
  sendTestEvent,
  TEST_POSTBACK_POLICY,
} from './deliveries.service';
