import { ContractError } from '../contract/errors';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parses the verified raw bytes. A UTF-8 BOM is accepted (the decoder drops it); invalid
 * UTF-8 and malformed JSON are the sender's mistakes, answered with 400.
 */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new ContractError(400, 'The request body is not valid UTF-8 text.');
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text, refuseNul);
  } catch (error) {
    if (error instanceof ContractError) throw error;
    throw new ContractError(400, `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** PostgreSQL cannot store U+0000 in text: refused here as the sender's mistake, not a 500 later. */
function refuseNul(_key: string, value: unknown) {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new ContractError(400, 'Invalid request: text may not contain the NUL character (\\u0000).');
  }
  return value;
}
