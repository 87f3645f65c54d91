import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { CloudTasksClient } from '@google-cloud/tasks';
import { OAuth2Client } from 'google-auth-library';
import { VirtualClock } from '@kubeplane/sdk/provider';
import { GoogleCloudEmulators, retryDelaySeconds } from './index.js';

const clock = new VirtualClock(Date.now());
const google = new GoogleCloudEmulators({ clock });
const server = setupServer(...google.handlers());
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: 't' });
type GaxAuthClient = NonNullable<NonNullable<ConstructorParameters<typeof CloudTasksClient>[0]>['authClient']>;
const client = new CloudTasksClient({ fallback: true, authClient: authClient as unknown as GaxAuthClient, projectId: google.project });
const parent = `projects/${google.project}/locations/${google.location}`;
const queue = `${parent}/queues/kubeplane-steps`;
const url = 'https://europe-west1-kubeplane-sandbox.cloudfunctions.net/kubeplaneStep?x=1';
const email = 'tasks@kubeplane-sandbox.iam.gserviceaccount.com';

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('Cloud Tasks emulator through the real client (REST)', () => {
  it('creates, gets and lists queues', async () => {
    const [created] = await client.createQueue({
      parent,
      queue: { name: queue, retryConfig: { maxAttempts: 3, minBackoff: { seconds: 10 }, maxBackoff: { seconds: 300 }, maxDoublings: 3 } },
    });
    expect(created).toMatchObject({ name: queue, state: 'RUNNING', retryConfig: { maxAttempts: 3, maxDoublings: 3 } });
    await expect(client.createQueue({ parent, queue: { name: queue } })).rejects.toMatchObject({ code: 409 });
    const [got] = await client.getQueue({ name: queue });
    expect(got.retryConfig?.minBackoff?.seconds).toBe('10');
    const [queues] = await client.listQueues({ parent });
    expect(queues.map((q) => q.name)).toEqual([queue]);
  });

  it("creates a task, de-duplicates its name for an hour after it ran, and pushes it with Cloud Tasks' headers and an OIDC token", async () => {
    const name = `${queue}/tasks/step-c1-0001`;
    const body = Buffer.from(JSON.stringify({ cluster: 'c1' }));
    const [task] = await client.createTask({
      parent: queue,
      task: {
        name,
        httpRequest: { url, httpMethod: 'POST', headers: { 'Content-Type': 'application/json' }, body, oidcToken: { serviceAccountEmail: email } },
      },
    });
    expect(task).toMatchObject({ name, dispatchCount: 0, view: 'BASIC', dispatchDeadline: { seconds: '600' } });
    expect(task.httpRequest?.body ?? Buffer.alloc(0)).toHaveLength(0);
    const [full] = await client.getTask({ name, responseView: 'FULL' });
    expect(Buffer.from(full.httpRequest?.body as Uint8Array).toString()).toBe(JSON.stringify({ cluster: 'c1' }));
    await expect(client.createTask({ parent: queue, task: { name, httpRequest: { url } } })).rejects.toMatchObject({ code: 409 });

    expect(google.tasks.nextDueAt()).toBe(clock.now());
    const [dispatch] = google.tasks.takeDue(10);
    expect(google.tasks.takeDue(10)).toEqual([]);
    expect(dispatch).toMatchObject({ task: name, queue, url, method: 'POST', attempt: 1, dispatchDeadlineSeconds: 600 });
    expect(dispatch?.headers).toMatchObject({
      'User-Agent': 'Google-Cloud-Tasks',
      'X-CloudTasks-QueueName': 'kubeplane-steps',
      'X-CloudTasks-TaskName': 'step-c1-0001',
      'X-CloudTasks-TaskRetryCount': '0',
      'X-CloudTasks-TaskExecutionCount': '0',
      'Content-Type': 'application/json',
    });
    const token = (dispatch?.headers.Authorization ?? '').replace(/^Bearer /, '');
    const ticket = await new OAuth2Client().verifyIdToken({ idToken: token, audience: url.split('?')[0] as string });
    expect(ticket.getPayload()?.email).toBe(email);
    google.tasks.complete(name, { status: 200 });
    expect(google.tasks.size(queue)).toBe(0);
    await expect(client.createTask({ parent: queue, task: { name, httpRequest: { url } } })).rejects.toMatchObject({ code: 409 });
    clock.advance(3600_000 + 1);
    await client.createTask({ parent: queue, task: { name, httpRequest: { url } } });
    await client.deleteTask({ name });
    expect(google.counts().tasks).toEqual({ created: 2, duplicates: 2, dispatched: 1 });
  });

  it("retries on the queue's backoff and drops the task when its attempts are spent", async () => {
    const name = `${queue}/tasks/failing`;
    await client.createTask({ parent: queue, task: { name, httpRequest: { url, body: Buffer.from('x') } } });
    const first = google.tasks.takeDue(1)[0];
    expect(first?.headers['Content-Type']).toBe('application/octet-stream');
    const start = clock.now();
    google.tasks.complete(name, { status: 500 });
    expect(google.tasks.nextDueAt()).toBe(start + 10_000);
    clock.advanceTo(start + 10_000);
    const second = google.tasks.takeDue(1)[0];
    expect(second?.headers).toMatchObject({
      'X-CloudTasks-TaskRetryCount': '1',
      'X-CloudTasks-TaskExecutionCount': '0',
      'X-CloudTasks-TaskPreviousResponse': '500',
    });
    google.tasks.complete(name, 'deadline-exceeded');
    expect(google.tasks.nextDueAt()).toBe(start + 10_000 + 20_000);
    const [got] = await client.getTask({ name });
    expect(got).toMatchObject({ dispatchCount: 2, responseCount: 1 });
    expect(got.lastAttempt?.responseStatus?.code).toBe(4);
    clock.advance(20_000);
    expect(google.tasks.takeDue(5)[0]?.attempt).toBe(3);
    google.tasks.complete(name, { status: 503 });
    expect(google.tasks.size()).toBe(0);
    expect(google.tasks.dropped()).toEqual([{ task: name, queue, attempts: 3, lastStatus: 503 }]);
  });

  it("follows RetryConfig's documented intervals (10s, 20s, 40s, 80s, 160s, 240s, 300s, 300s)", () => {
    const retry = { maxAttempts: -1, minBackoffSeconds: 10, maxBackoffSeconds: 300, maxDoublings: 3, maxRetryDurationSeconds: 0 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelaySeconds(retry, n))).toEqual([10, 20, 40, 80, 160, 240, 300, 300]);
  });

  it('refuses bad names, far schedules, deadlines out of range and oversized tasks', async () => {
    await expect(client.createTask({ parent: queue, task: { name: `${queue}/tasks/bad.name`, httpRequest: { url } } })).rejects.toMatchObject({ code: 400 });
    await expect(
      client.createTask({ parent: queue, task: { httpRequest: { url }, scheduleTime: { seconds: Math.floor(clock.now() / 1000) + 31 * 86400 } } }),
    ).rejects.toMatchObject({ code: 400 });
    await expect(client.createTask({ parent: queue, task: { httpRequest: { url }, dispatchDeadline: { seconds: 10 } } })).rejects.toMatchObject({ code: 400 });
    await expect(client.createTask({ parent: queue, task: { httpRequest: { url, body: Buffer.alloc(101 * 1024) } } })).rejects.toMatchObject({ code: 400 });
    await expect(client.createTask({ parent: `${parent}/queues/nope`, task: { httpRequest: { url } } })).rejects.toMatchObject({ code: 404 });
  });

  it("holds a paused queue's tasks until it resumes; RunTask forces one", async () => {
    await client.pauseQueue({ name: queue });
    const [t] = await client.createTask({ parent: queue, task: { httpRequest: { url } } });
    expect(google.tasks.nextDueAt()).toBeNull();
    await client.resumeQueue({ name: queue });
    expect(google.tasks.nextDueAt()).toBe(clock.now());
    await client.pauseQueue({ name: queue });
    await client.runTask({ name: t.name as string });
    expect(google.tasks.takeDue(1).map((d) => d.task)).toEqual([t.name]);
    google.tasks.complete(t.name as string, { status: 204 });
    await client.resumeQueue({ name: queue });
  });

  it('takes enums by name or number and answers in the encoding asked', async () => {
    const created = await fetch(`https://cloudtasks.googleapis.com/v2/${queue}/tasks`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ task: { name: `${queue}/tasks/by-name`, httpRequest: { url, httpMethod: 'PUT' } } }),
    });
    expect(((await created.json()) as { httpRequest: { httpMethod: unknown } }).httpRequest.httpMethod).toBe('PUT');
    const asInt = await fetch(`https://cloudtasks.googleapis.com/v2/${queue}/tasks/by-name?$alt=json%3Benum-encoding=int`, {
      headers: { authorization: 'Bearer t' },
    });
    expect(((await asInt.json()) as { httpRequest: { httpMethod: unknown } }).httpRequest.httpMethod).toBe(4);
    const byNumber = await fetch(`https://cloudtasks.googleapis.com/v2/${queue}/tasks?$alt=json%3Benum-encoding=int`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ task: { name: `${queue}/tasks/by-number`, httpRequest: { url, httpMethod: 6 } }, responseView: 2 }),
    });
    expect(await byNumber.json()).toMatchObject({ httpRequest: { httpMethod: 6 }, view: 2 });
    const bad = await fetch(`https://cloudtasks.googleapis.com/v2/${queue}/tasks`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ task: { httpRequest: { url, httpMethod: 'FETCH' } } }),
    });
    expect(bad.status).toBe(400);
    await client.deleteTask({ name: `${queue}/tasks/by-name` });
    await client.deleteTask({ name: `${queue}/tasks/by-number` });
  });

  it('refuses an unknown field as Google does', async () => {
    const res = await fetch(`https://cloudtasks.googleapis.com/v2/${queue}/tasks`, {
      method: 'POST',
      headers: { authorization: 'Bearer t' },
      body: JSON.stringify({ task: { httpRequest: { url }, x: 1 } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 400, message: `Invalid JSON payload received. Unknown name "x" at 'task': Cannot find field.`, status: 'INVALID_ARGUMENT' },
    });
  });
});

describe('the push side', () => {
  it("keeps a queue's tasks in flight within its max_concurrent_dispatches", async () => {
    const q = `${parent}/queues/narrow`;
    google.tasks.createQueue(q, { maxConcurrentDispatches: 2, maxAttempts: 1 });
    for (let i = 0; i < 3; i += 1) await client.createTask({ parent: q, task: { name: `${q}/tasks/t${i}`, httpRequest: { url } } });
    const first = google.tasks.takeDue(10);
    expect(first).toHaveLength(2);
    expect(google.tasks.nextDueAt()).toBeNull();
    google.tasks.complete(first[0]?.task as string, { status: 404 });
    expect(google.tasks.dropped().filter((d) => d.queue === q)).toEqual([{ task: first[0]?.task, queue: q, attempts: 1, lastStatus: 404 }]);
    expect(google.tasks.takeDue(10)).toHaveLength(1);
    expect(google.tasks.size(q)).toBe(2);
  });

  it('lets a dispatched task be deleted; what its target answers then changes nothing', async () => {
    const q = `${parent}/queues/deletable`;
    google.tasks.createQueue(q);
    const [t] = await client.createTask({ parent: q, task: { httpRequest: { url } } });
    const [d] = google.tasks.takeDue(1).filter((x) => x.queue === q);
    expect(d?.task).toBe(t.name);
    await client.deleteTask({ name: t.name as string });
    google.tasks.complete(t.name as string, { status: 500 });
    expect(google.tasks.size(q)).toBe(0);
    expect(google.tasks.nextDueAt()).toBeNull();
  });
});
