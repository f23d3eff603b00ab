import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { ContractError } from '../contract/errors';

type ReadOptions = { limit: number; timeoutMs: number };

const describeLimit = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`
    : `${Math.round(bytes / 1024)} KB`;

/**
 * Reads the exact bytes of a request body. The signature covers these bytes, so nothing
 * (charset decoding, BOM stripping, inflation) may happen before verification.
 */
export async function readRawBody(req: IncomingMessage, { limit, timeoutMs }: ReadOptions): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    throw new ContractError(
      415,
      `Content-Encoding "${encoding}" is not accepted: the signature covers the exact bytes, so send the body uncompressed.`
    );
  }
  const declaredLength = req.headers['content-length'];
  if (declaredLength !== undefined && Number(declaredLength) > limit) {
    throw tooLarge(limit);
  }

  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Stop buffering a client that trickles bytes; the connection is closed after the answer.
      req.pause();
      reject(
        new ContractError(408, `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s.`)
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([getRawBody(req, { limit, length: declaredLength }), timeout]);
  } catch (error) {
    throw toContractError(error, limit);
  } finally {
    clearTimeout(timer);
  }
}

function tooLarge(limit: number) {
  return new ContractError(
    413,
    `The request body is larger than this site accepts (${describeLimit(limit)}). Raise "bodyLimit" in the publish-bridge plugin config if such posts are expected.`
  );
}

function toContractError(error: unknown, limit: number): ContractError {
  if (error instanceof ContractError) return error;
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') return tooLarge(limit);
  if (type === 'request.size.invalid') {
    return new ContractError(400, 'The body is not as long as its Content-Length header says.');
  }
  if (type === 'request.aborted')
    return new ContractError(400, 'The client closed the connection before the body arrived.');
  return new ContractError(400, 'The request body could not be read.');
}
