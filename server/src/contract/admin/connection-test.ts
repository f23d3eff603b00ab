/** POST /connection-test: the site calls its own handshake as the publisher would. */
import type { Capability } from '../capabilities';
import type { Data } from './common';

/** What a site declared in a successful handshake, as the server parsed it: never another server's raw answer. */
export type ParsedHandshake = {
  contract: string;
  version: string;
  site: { name: string; url: string };
  capabilities: Capability[];
};

export type ConnectionTestResult = {
  ok: boolean;
  /** The handshake URL the server called: the base URL plus `/handshake`; none when nothing was signed. */
  url?: string;
  /** What the user should know or do next, in one sentence or two. */
  message: string;
  status?: number;
  durationMs?: number;
  handshake?: ParsedHandshake;
};

/** POST /connection-test (no body: the server chooses the address and the key) */
export declare namespace TestConnection {
  export type Response = Data<ConnectionTestResult>;
}
