// The shape every benchmark file exports: `export async function run(): Promise<BenchResult[]>`.
export interface BenchResult {
  /** What was measured, e.g. "validate+plan 100 clusters / 10,000 nodes (median of 15)". */
  name: string;
  value: number;
  /** e.g. "ms", "calls/node", "x floor". */
  unit: string;
  /** The target from the issue, as text, e.g. "< 250 ms". */
  target?: string;
  /** The baseline measured in the same run, or any context a reader needs. */
  note?: string;
}
export interface BenchModule {
  run(): Promise<BenchResult[]>;
}
