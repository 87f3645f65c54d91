import { randomUUID } from 'node:crypto';
import type { ReceivedMessage } from '../ports/queue.js';

// The delivery rules every local queue adapter shares: one message in flight per group, the oldest due
// message of a free group first, and when the next delivery can happen (a busy group waits for its message
// in flight to be acknowledged or to time out).
export interface QueuedMessage {
  groupId: string;
  seq: number;
  visibleAt: number;
  /** Set while delivered and not yet acknowledged. */
  receipt?: string;
}

/** A message as the local adapters keep it. */
export interface StoredMessage<T> extends QueuedMessage {
  id: string;
  body: T;
  receiveCount: number;
}

/** Delivers the messages due now (see `deliverable`): each gets a receipt and is hidden for the visibility timeout. */
export function deliver<T>(messages: Array<StoredMessage<T>>, now: number, max: number, visibilityMs: number): Array<ReceivedMessage<T>> {
  return deliverable(messages, now, max).map((m) => {
    m.receipt = randomUUID();
    m.receiveCount += 1;
    m.visibleAt = now + visibilityMs;
    return { body: m.body, groupId: m.groupId, receiveCount: m.receiveCount, receipt: m.receipt };
  });
}

/** The messages to deliver now, at most `max`, at most one per group. */
export function deliverable<M extends QueuedMessage>(messages: readonly M[], now: number, max: number): M[] {
  const busy = new Set(messages.filter((m) => m.receipt !== undefined && m.visibleAt > now).map((m) => m.groupId));
  const out: M[] = [];
  for (const m of [...messages].sort((a, b) => a.seq - b.seq)) {
    if (out.length >= max) break;
    if (busy.has(m.groupId) || m.visibleAt > now) continue;
    busy.add(m.groupId);
    out.push(m);
  }
  return out;
}

/** When the next message can be delivered, or null when there are none. */
export function nextDeliveryAt(messages: readonly QueuedMessage[], now: number): number | null {
  if (messages.length === 0) return null;
  const inFlightUntil = new Map<string, number>();
  for (const m of messages) {
    if (m.receipt !== undefined && m.visibleAt > now) inFlightUntil.set(m.groupId, Math.max(inFlightUntil.get(m.groupId) ?? 0, m.visibleAt));
  }
  let next = Infinity;
  for (const m of messages) next = Math.min(next, Math.max(m.visibleAt, inFlightUntil.get(m.groupId) ?? 0));
  return next;
}
