// CloudTasksQueue on the sandbox's Cloud Tasks emulator, through the real client in REST mode, with the emulator's
// push side standing in for Cloud Tasks' backend: what the step function receives, when, and how often. (Cloud Tasks
// v2 has no pull, so the port suite's receive/ack/release tests do not apply: see adapters.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { GoogleCloudEmulators } from '@kubeplane/sandbox';
import { CloudTasksQueue, taskId } from './cloud-tasks-queue.js';
import { cloudTasksClient } from './google-clients.js';

// Near the real time: google-auth-library checks ID tokens against it.
const clock = new VirtualClock(Date.now());
const google = new GoogleCloudEmulators({ clock });
const server = setupServer(...google.handlers());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
const client = cloudTasksClient({ projectId: google.project, authClient });
const url = 'https://kubeplane-step-abc-ew.a.run.app/';
const serviceAccountEmail = 'kubeplane-tasks@kubeplane-sandbox.iam.gserviceaccount.com';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

let n = 0;
function queue(retry: { maxAttempts?: number; minBackoffSeconds?: number; maxBackoffSeconds?: number; maxDoublings?: number } = {}) {
  const id = `steps-${++n}`;
  const q = new CloudTasksQueue<{ step: string }>({
    projectId: google.project,
    location: google.location,
    queue: id,
    url,
    serviceAccountEmail,
    dispatchDeadlineSeconds: 900,
    now: () => clock.now(),
    client,
  });
  google.tasks.createQueue(q.queuePath, retry);
  return q;
}

describe('CloudTasksQueue', () => {
  it("pushes a task due now with an ID token that verifies against Google's certificates for the step URL", async () => {
    const q = queue();
    await q.send({ step: 'prepare' }, { groupId: 'c1' });
    const [d] = google.tasks.takeDue(10);
    // Checked on the real time (google-auth-library's): first, before the other tests move the virtual clock on.
    const ticket = await new OAuth2Client().verifyIdToken({ idToken: d!.headers.Authorization!.replace(/^Bearer /, ''), audience: url });
    expect(ticket.getPayload()?.email).toBe(serviceAccountEmail);
    google.tasks.complete(d!.task, { status: 200 });
  });

  it('schedules a delayed task for its time and pushes it as a POST of the JSON body with an OIDC token for the step URL', async () => {
    const q = queue();
    const sentAt = clock.now();
    await q.send({ step: 'prepare' }, { groupId: 'c1', delaySeconds: 900, deduplicationId: 'c1/g1/s2/a0' });
    expect(google.tasks.nextDueAt()).toBe(sentAt + 900_000);
    clock.advance(899_000);
    expect(google.tasks.takeDue(10)).toEqual([]);
    clock.advance(1_000);
    const [d] = google.tasks.takeDue(10);
    expect(d).toMatchObject({ task: q.taskName('c1/g1/s2/a0'), url, method: 'POST', dispatchDeadlineSeconds: 900, attempt: 1 });
    expect(JSON.parse(d!.body.toString('utf8'))).toEqual({ step: 'prepare' });
    expect(d!.headers).toMatchObject({ 'Content-Type': 'application/json', 'X-Kubeplane-Group': 'c1', 'X-CloudTasks-TaskRetryCount': '0' });
    const claims = JSON.parse(Buffer.from(d!.headers.Authorization!.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(claims).toMatchObject({ aud: url, email: serviceAccountEmail });
    google.tasks.complete(d!.task, { status: 200 });
    expect(google.tasks.size(q.queuePath)).toBe(0);
  });

  it('creates nothing for a second send of a deduplication id, even after the first ran', async () => {
    const q = queue();
    const before = google.counts().tasks;
    await q.send({ step: 'prepare' }, { groupId: 'c1', deduplicationId: 'c1/g1/s3/a0' });
    await q.send({ step: 'prepare' }, { groupId: 'c1', deduplicationId: 'c1/g1/s3/a0' });
    expect(google.tasks.size(q.queuePath)).toBe(1);
    const [d] = google.tasks.takeDue(10);
    google.tasks.complete(d!.task, { status: 200 });
    await q.send({ step: 'prepare' }, { groupId: 'c1', deduplicationId: 'c1/g1/s3/a0' });
    expect(google.tasks.size(q.queuePath)).toBe(0);
    expect(google.counts().tasks.created - before.created).toBe(1);
    expect(google.counts().tasks.duplicates - before.duplicates).toBe(2);
  });

  it('lets Cloud Tasks name a task sent without a deduplication id, so each send is a task', async () => {
    const q = queue();
    await q.send({ step: 'prepare' }, { groupId: 'c1', headers: { 'x-kubeplane-resends': '2' } });
    await q.send({ step: 'prepare' }, { groupId: 'c1' });
    expect(google.tasks.size(q.queuePath)).toBe(2);
    const pushed = google.tasks.takeDue(10);
    expect(new Set(pushed.map((d) => d.task)).size).toBe(2);
    expect(pushed.map((d) => d.headers['x-kubeplane-resends'])).toContain('2');
    for (const d of pushed) google.tasks.complete(d.task, { status: 204 });
  });

  it("is retried with the queue's backoff after a failed response, and dropped after maxAttempts", async () => {
    const q = queue({ maxAttempts: 3, minBackoffSeconds: 10, maxBackoffSeconds: 300, maxDoublings: 4 });
    await q.send({ step: 'prepare' }, { groupId: 'c1', deduplicationId: 'c1/g1/s4/a0' });
    const name = q.taskName('c1/g1/s4/a0');
    for (const [attempt, backoff] of [
      [1, 10],
      [2, 20],
    ] as const) {
      const [d] = google.tasks.takeDue(10);
      expect(d).toMatchObject({ task: name, attempt });
      expect(d!.headers['X-CloudTasks-TaskRetryCount']).toBe(String(attempt - 1));
      google.tasks.complete(name, { status: 500 });
      expect(google.tasks.nextDueAt()).toBe(clock.now() + backoff * 1000);
      clock.advance(backoff * 1000);
    }
    const [last] = google.tasks.takeDue(10);
    expect(last!.headers['X-CloudTasks-TaskRetryCount']).toBe('2');
    google.tasks.complete(name, { status: 503 });
    expect(google.tasks.dropped()).toContainEqual({ task: name, queue: q.queuePath, attempts: 3, lastStatus: 503 });
    expect(google.tasks.size(q.queuePath)).toBe(0);
  });

  it('names tasks with a hashed prefix and a readable part, distinct for ids that read alike', () => {
    expect(taskId('c1/g1/s2/a0')).toMatch(/^[0-9a-f]{8}-c1_g1_s2_a0-[0-9a-f]{32}$/);
    expect(taskId('c1/g1/s2/a0')).not.toBe(taskId('c1_g1_s2_a0'));
    expect(taskId('x'.repeat(2000)).length).toBeLessThanOrEqual(500);
  });

  it('refuses a dispatch deadline Cloud Tasks would not take', () => {
    expect(() => new CloudTasksQueue({ projectId: 'p', location: 'l', queue: 'q', url, serviceAccountEmail, dispatchDeadlineSeconds: 3600, client })).toThrow(
      "dispatch deadline 3600 s is outside Cloud Tasks' range (15 to 1800 s)",
    );
  });
});
