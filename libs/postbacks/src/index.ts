export { isForbiddenAddress } from './addresses';
export { getPostbackConfig, POSTBACK_INPUT, postbackView, putPostbackConfig, READ_POSTBACK_POLICY, rotatePostbackSecret, ROTATION_OVERLAP_MS, WRITE_POSTBACK_POLICY } from './config.service';
export { newSigningSecret, open, seal } from './secret-box';
export type { SealedSecret } from './secret-box';
export { MACROS, validateTarget } from './target';
export type { Macro, Resolver } from './target';
