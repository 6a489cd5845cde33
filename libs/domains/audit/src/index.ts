export { AuditData, auditDomain, securityEventId } from './data/audit.data';
export type { AuditFilter, SecurityEventInput, SecurityEventRow } from './data/audit.data';
export { SECURITY_EVENT_TYPES } from './data/security-event.schema';
export type { SecurityEventDoc, SecurityEventType } from './data/security-event.schema';
export { actorOf, operatorActorOf, recordOperatorAct } from './actor';
export { clientNetwork, networkPrefix, shownNetwork } from './client-network';
export { auditLog } from './audit-log.service';
export type { AuditLogInput } from './audit-log.service';
export { securityLog, SECURITY_LOG_INPUT } from './security-log.service';
