/** A completed activity as the ReadableSpan an OTLP exporter sends: a tracer cannot give it the activity's own times and ids. */
import { createHash } from 'node:crypto';
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type SpanContext, type SpanStatus } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Activity } from '../clients/management/schemas';

export const ACTIVITY_SCOPE = { name: 'dataprotect-exporter/activities' };

/** Trace and span ids derived from the estate's ids: a resent activity is the same span, a job done before its group joins its trace. */
function hex(kind: string, target: string, id: string, length: number): string {
  // The target's name too: two services may use the same ids.
  const digest = createHash('sha256').update(`${kind}\u0000${target}\u0000${id}`).digest('hex').slice(0, length);
  // All zeros is the invalid id of the W3C trace context; sha-256 gives it with probability 2^-64.
  return /^0+$/.test(digest) ? `${digest.slice(0, -1)}1` : digest;
}

/** the trace of a job group (its root activity's id) */
export function traceIdOf(target: string, rootActivityId: string): string {
  return hex('trace', target, rootActivityId, 32);
}

export function spanIdOf(target: string, activityId: string): string {
  return hex('span', target, activityId, 16);
}

/** Where an activity sits in its trace: the root activity (job group) and its parent, if any. */
export interface ActivityPlace {
  rootId: string;
  parentId?: string;
}

/** ERROR for errors an operator should look at; CANCELED, SKIPPED and UNKNOWN are UNSET (nothing went wrong; the result attribute says). */
function spanStatusOf(result: string): SpanStatus {
  if (result === 'FAILED' || result === 'OK_WITH_ERRORS') return { code: SpanStatusCode.ERROR, message: result };
  if (result === 'OK') return { code: SpanStatusCode.OK };
  return { code: SpanStatusCode.UNSET };
}

/**
 * The end the counters count the activity by (activities.ts: endTime, else start plus duration, else updateTime); one that never
 * started (failed or canceled while queued: no startTime, and the model requires no duration) is a span of no length at its end.
 */
function timesOf(activity: Activity): { start: number; end: number } | undefined {
  const derivedEnd = activity.startTime != null && activity.duration != null ? activity.startTime + activity.duration : undefined;
  const end = activity.endTime ?? derivedEnd ?? activity.updateTime;
  const start = activity.startTime ?? (activity.duration != null ? end - activity.duration : end);
  if (end < start) return undefined;
  return { start, end };
}

function attributesOf(activity: Activity, result: string, durationMs: number): Attributes {
  const attributes: Attributes = {
    'dataprotect.activity.id': activity.id,
    'dataprotect.activity.category': activity.category,
    'dataprotect.activity.class_type': activity.classType ?? 'UNKNOWN',
    'dataprotect.activity.result': result,
    'dataprotect.activity.duration_ms': durationMs,
  };
  const optional: Array<[string, string | number | null | undefined]> = [
    ['dataprotect.activity.name', activity.name],
    ['dataprotect.activity.subcategory', activity.subcategory],
    ['dataprotect.activity.parent_id', activity.parentId],
    ['dataprotect.asset.id', activity.asset?.id],
    ['dataprotect.asset.name', activity.asset?.name],
    ['dataprotect.asset.type', activity.asset?.type],
    ['dataprotect.policy.id', activity.protectionPolicy?.id],
    ['dataprotect.policy.name', activity.protectionPolicy?.name],
    ['dataprotect.activity.bytes_transferred', activity.stats?.bytesTransferred ?? activity.result?.bytesTransferred],
  ];
  for (const [key, value] of optional) if (value != null && value !== '') attributes[key] = value;
  return attributes;
}

export function activitySpan(target: string, activity: Activity, place: ActivityPlace, resource: Resource): ReadableSpan | undefined {
  const times = timesOf(activity);
  if (!times) return undefined;
  const traceId = traceIdOf(target, place.rootId);
  const context: SpanContext = { traceId, spanId: spanIdOf(target, activity.id), traceFlags: TraceFlags.SAMPLED };
  const parent: SpanContext | undefined = place.parentId
    ? { traceId, spanId: spanIdOf(target, place.parentId), traceFlags: TraceFlags.SAMPLED, isRemote: true }
    : undefined;
  const result = activity.result?.status || 'UNKNOWN';
  const durationMs = times.end - times.start;
  return {
    name: `${activity.category} ${activity.classType ?? 'ACTIVITY'}`,
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    ...(parent ? { parentSpanContext: parent } : {}),
    startTime: millisToHrTime(times.start),
    endTime: millisToHrTime(times.end),
    duration: millisToHrTime(durationMs),
    status: spanStatusOf(result),
    attributes: attributesOf(activity, result, durationMs),
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: ACTIVITY_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
