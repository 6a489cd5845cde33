export { AuditData, auditDomain, securityEventId } from './data/audit.data';
export type { SecurityEventInput, SecurityEventRow } from './data/audit.data';
export { SECURITY_EVENT_TYPES } from './data/security-event.schema';
export type { SecurityEventDoc, SecurityEventType } from './data/security-event.schema';
export { actorOf } from './actor';
export { securityLog, SECURITY_LOG_INPUT } from './security-log.service';
