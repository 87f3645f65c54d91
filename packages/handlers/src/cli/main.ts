export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
}
export async function main(_argv: string[], _io: CliIo): Promise<number> {
  return 0;
}
