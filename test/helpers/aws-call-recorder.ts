// Every command an AWS SDK v3 client sends, recorded with who sent it: a middleware in the client's initialize step
// (the SDK's own extension point, https://aws.amazon.com/blogs/developer/middleware-stack-modular-aws-sdk-js/) sees each
// command once, retries aside, with its input before it is serialised. A test may make one command fail there, after
// it was recorded, as a service fails a request IAM has already authorized.

/** The part of an SDK client this needs: every v3 client has it. */
export interface RecordableClient {
  middlewareStack: {
    add(
      middleware: (
        next: (args: { input: object }) => Promise<unknown>,
        context: { clientName?: string; commandName?: string },
      ) => (args: { input: object }) => Promise<unknown>,
      options: { step: 'initialize'; name: string },
    ): void;
  };
}

export interface RecordedCall {
  /** Who sent it: a function of the deploy, and whether its code or Lambda on its behalf (the event source mapping). */
  by: string;
  origin: string;
  /** `DynamoDBClient`, `SQSClient`, `SecretsManagerClient`. */
  client: string;
  /** The API operation (`PutItem`). */
  action: string;
  input: Readonly<Record<string, unknown>>;
}

interface Fault {
  by: string;
  action: string;
  error: Error;
}

export class AwsCallRecorder {
  readonly calls: RecordedCall[] = [];
  readonly #faults: Fault[] = [];

  /** Records every command `client` sends as `by`'s, from `origin`; returns the client. */
  record<C extends RecordableClient>(client: C, by: string, origin: string): C {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const action = (context.commandName ?? '').replace(/Command$/, '');
        this.calls.push({ by, origin, client: context.clientName ?? '', action, input: { ...args.input } });
        const fault = this.#faults.findIndex((f) => f.by === by && f.action === action);
        if (fault >= 0) throw this.#faults.splice(fault, 1)[0]?.error;
        return next(args);
      },
      { step: 'initialize', name: 'kubeplaneCallRecorder' },
    );
    return client;
  }

  /** The next `action` that `by` sends fails with `error`, once. */
  failNext(by: string, action: string, error: Error): void {
    this.#faults.push({ by, action, error });
  }

  /** Faults not yet used: each one a test set up should have been met. */
  get pendingFaults(): string[] {
    return this.#faults.map((f) => `${f.by} ${f.action}`);
  }
}
