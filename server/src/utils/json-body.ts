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
    return JSON.parse(text);
  } catch (error) {
    throw new ContractError(400, `The request body is not valid JSON: ${(error as Error).message}`);
  }
}
