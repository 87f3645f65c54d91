// The fast tier shares one process per worker among many files (isolate: false): a file that leaves a sandbox or an
// msw server listening would answer, or refuse, the HTTP of every later file in that worker, which then fails far
// from the cause. Each file must end with this process's HTTP as it found it; the failure names the file that did not.
import { afterAll, expect } from 'vitest';
import { httpLeftIntercepted } from '../helpers/http-intercepted.js';

afterAll(async () => {
  expect(await httpLeftIntercepted(), 'this file left HTTP intercepted (a sandbox or msw server not closed)').toBeNull();
});
