import { AsyncLocalStorage } from 'node:async_hooks';
import type { Connection } from '../config/connections';

/**
 * The connection a piece of work runs for: the gate runs each request in its connection's scope,
 * so every service below it reads that connection's options and records without being handed it.
 */
const scope = new AsyncLocalStorage<Connection>();

export const inConnection = <Result>(connection: Connection, work: () => Result): Result =>
  scope.run(connection, work);

/** The connection the current work runs for; none outside a request (start-up, timers). */
export const connectionInScope = (): Connection | undefined => scope.getStore();
