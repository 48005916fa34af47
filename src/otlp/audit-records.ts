/**
 * An audit entry as an OpenTelemetry log record (the ReadableLogRecord the
 * logs SDK hands its exporters), stamped with the entry's changedTime.
 *
 * Severity: INFO, and WARN for the auditType SECURITY (logins, users, roles,
 * certificates: what a security team watches for).
 */
import { millisToHrTime } from '@opentelemetry/core';
import { SeverityNumber, type LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { AuditLog } from '../clients/management/schemas';

export const AUDIT_SCOPE = { name: 'dataprotect-exporter/audit' };


export function severityOf(auditType: string): { number: SeverityNumber; text: string } {
  return auditType === 'SECURITY' ? { number: SeverityNumber.WARN, text: 'WARN' } : { number: SeverityNumber.INFO, text: 'INFO' };
}

export function auditRecord(entry: AuditLog, resource: Resource, observedMs: number): ReadableLogRecord {
  const attributes: LogAttributes = { 'dataprotect.audit.id': entry.id, 'dataprotect.audit.type': entry.auditType };
  const optional: Array<[string, string | null | undefined]> = [
    ['dataprotect.audit.changed_by', entry.changedBy?.username],
    ['dataprotect.audit.changed_by_id', entry.changedBy?.id],
    ['dataprotect.audit.object.id', entry.changedObject?.id],
    ['dataprotect.audit.object.name', entry.changedObject?.resourceName],
    ['dataprotect.audit.object.type', entry.changedObject?.resourceType],
    ['dataprotect.audit.message_id', entry.messageID],
  ];
  for (const [key, value] of optional) if (value != null && value !== '') attributes[key] = value;
  const severity = severityOf(entry.auditType);
  return {
    hrTime: millisToHrTime(entry.changedTime),
    hrTimeObserved: millisToHrTime(observedMs),
    severityNumber: severity.number,
    severityText: severity.text,
    body: entry.changeDescription ?? entry.auditType,
    resource,
    instrumentationScope: AUDIT_SCOPE,
    attributes,
    droppedAttributesCount: 0,
  };
}
