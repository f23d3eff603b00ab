import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { EXAMPLE_DIR, PREFIX, TEST_ENV, type Reply } from './site';
import { signedHeaders, TEST_KEY } from './signing';

/**
 * Instances of the example site in processes of their own (test/helpers/instance-process.js),
 * as several Strapi servers behind a load balancer run: nothing in memory is shared, only the
 * database. The caller gives the database and the content types to use.
 */
const INSTANCE_ENV = {
  ...TEST_ENV,
  STRAPI_DISABLE_UPDATE_NOTIFICATION: 'true',
  STRAPI_LOG_LEVEL: 'error',
  EXAMPLE_DIR,
  // Node keeps the code it compiled for Strapi's modules here: each start of an instance is a new
  // process, which otherwise compiles them all again (a few tenths of a second of CPU each start).
  NODE_COMPILE_CACHE: path.join(os.tmpdir(), 'pb-instance-compile-cache'),
};

export type Instance = {
  baseUrl: string;
  /** The instance's process, to read its memory from /proc. */
  pid: number;
  send(method: string, pathUnderPrefix: string, body?: object, options?: { key?: string }): Promise<Reply>;
  /** Everything the instance wrote to stdout and stderr so far (it is also passed through). */
  output(): string;
  /** Runs one of instance-process.js's commands inside that instance. */
  call<T = unknown>(command: string, ...args: unknown[]): Promise<T>;
  stop(): Promise<void>;
};

export async function startInstance(env: Record<string, string>): Promise<Instance> {
  const child: ChildProcess = fork(path.join(__dirname, 'instance-process.js'), [], {
    env: { ...process.env, ...INSTANCE_ENV, PUBLISH_BRIDGE_API_KEY: TEST_KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(chunk) && process.stdout.write(chunk));
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk) && process.stderr.write(chunk));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`instance exited with ${code} before it was ready`)));
    child.on('message', (message: any) => {
      if (message?.type === 'ready') resolve(message.port);
      if (message?.type === 'failed') reject(new Error(`instance failed to start: ${message.error}`));
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  let nextId = 0;

  const instance: Instance = {
    baseUrl,
    pid: child.pid!,
    output: () => Buffer.concat(output).toString('utf8'),
    async send(method, pathUnderPrefix, body, options = {}) {
      const raw = body === undefined ? '' : JSON.stringify(body);
      const response = await fetch(`${baseUrl}${PREFIX}${pathUnderPrefix}`, {
        method,
        headers: {
          ...(raw ? { 'Content-Type': 'application/json' } : {}),
          ...signedHeaders(raw, { key: options.key ?? TEST_KEY }),
        },
        body: raw || undefined,
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Left as text so a test can show what came back.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    call<T>(command: string, ...args: unknown[]) {
      const id = (nextId += 1);
      return new Promise<T>((resolve, reject) => {
        if (!child.connected) return reject(new Error(`${command}: the instance's process has exited`));
        const onMessage = (message: any) => {
          if (message?.id !== id) return;
          child.off('message', onMessage);
          if ('error' in message) reject(new Error(`${command} failed in the instance: ${message.error}`));
          else resolve(message.result as T);
        };
        child.on('message', onMessage);
        child.send({ id, command, args });
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await instance.call('stop').catch(() => child.kill());
      await exited;
    },
  };
  return instance;
}
