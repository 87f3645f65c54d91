// The four Lambda functions of the deploy, by the name the stack gives each and the directory its bundle is in.

/** Each function of the deploy and the name of its bundle's directory (`lambda/<name>/index.mjs` in this package). */
export const FUNCTIONS = { step: 'step', api: 'api', deadLetter: 'dead-letter', watchdog: 'watchdog' } as const;

/** One of the deploy's four functions: the step worker, the HTTP API, the dead-letter handler and the watchdog. */
export type FunctionName = keyof typeof FUNCTIONS;

/** Where a function's code is: a directory holding an `index.mjs` that exports `handler`. */
export interface FunctionBundle {
  /** The directory Lambda's asset is made from. */
  dir: string;
}
