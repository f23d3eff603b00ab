/**
 * The fastest of a few runs of `run`, in milliseconds, so that a pause of the machine does not
 * count. Only for comparing two costs measured in the same run (a ratio), never against a constant.
 */
export function fastestMs(run: () => unknown, attempts = 3): number {
  let fastest = Infinity;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const start = process.hrtime.bigint();
    run();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return fastest;
}

/** A flat document of about `length` characters, the cost a body of that size should have. */
export const flatDocumentOf = (length: number): string => '<p>y</p>'.repeat(Math.ceil(length / 8));
