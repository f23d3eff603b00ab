import type { Core } from '@strapi/strapi';
import { z } from 'zod';
import { PLUGIN_ID } from '../../constants';

/** A role's permission on the plugin's actions or types, as the admin keeps it (`admin::permission`). */
type RolePermission = {
  action: string;
  actionParameters: unknown;
  subject: string | null;
  properties: unknown;
  conditions: unknown;
  role: number;
  /** The role's code as well: SQLite may give a deleted role's id to the next role made. */
  roleCode: string;
};
type PermissionRow = Omit<RolePermission, 'role' | 'roleCode'> & {
  role: { id: number; code: string } | null;
};

const SUPER_ADMIN = 'strapi-super-admin';
const MEMORY = { key: 'role-permissions' };
/** An action each start with the plugin gives the Super Admin: its absence marks a start without the plugin. */
const MARKER_ACTION = `plugin::${PLUGIN_ID}.settings.read`;
const CHANGES = [
  'afterCreate',
  'afterCreateMany',
  'afterUpdate',
  'afterUpdateMany',
  'afterDelete',
  'afterDeleteMany',
];

const OURS = `plugin::${PLUGIN_ID}.`;

/**
 * A remembered permission as `current` writes it. Parsing keeps only these keys: whatever else
 * a row holds never reaches the permission written.
 */
const REMEMBERED = z.object({
  action: z.string(),
  actionParameters: z.record(z.string(), z.unknown()).nullable().default({}),
  subject: z.string().nullable(),
  properties: z.record(z.string(), z.unknown()).nullable().default({}),
  conditions: z.array(z.string()).nullable().default([]),
  role: z.number().int().positive(),
  roleCode: z.string(),
});

/**
 * The remembered permissions that are well formed and on the plugin's own actions or types, for
 * a role other than the Super Admin: the memory is a row anyone with write access to the core
 * store can change, and a start must never grant from it what the plugin does not own.
 */
function rememberedOurs(stored: unknown): RolePermission[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((entry) => {
    const parsed = REMEMBERED.safeParse(entry);
    if (!parsed.success) return [];
    const { action, subject, roleCode } = parsed.data;
    const ours = action.startsWith(OURS) || (subject?.startsWith(OURS) ?? false);
    return ours && roleCode !== SUPER_ADMIN ? [parsed.data] : [];
  });
}

const identify = (permission: RolePermission) =>
  JSON.stringify([permission.role, permission.action, permission.subject]);

/**
 * A start without the plugin (disabled, or its package removed) deletes every role's permission
 * on the plugin's actions and types: Strapi's admin cleans permissions whose action or subject
 * no longer exists. The plugin remembers the roles' permissions in its own store, kept current as
 * admins change roles, and puts back what such a start deleted. The Super Admin's are left to
 * Strapi, which gives it every action at each start.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const store = () => strapi.store({ type: 'plugin', name: PLUGIN_ID });
  const permissions = () => strapi.db.query('admin::permission');
  const ours = {
    $or: [{ action: { $startsWith: OURS } }, { subject: { $startsWith: OURS } }],
  };

  /** A remembering the watch has asked for and not yet run. */
  let pending: NodeJS.Timeout | undefined;
  /** Set by an uninstall: nothing is remembered again until the next start. */
  let forgotten = false;

  /** The remembering under way, which an uninstall waits for before it deletes the memory. */
  let running: Promise<void> | undefined;

  function rememberLogged(): Promise<void> {
    const run = service
      .remember()
      .catch((error: Error) => {
        strapi.log.warn(`[${PLUGIN_ID}] could not remember the roles' permissions: ${error.message}`);
      })
      .finally(() => {
        if (running === run) running = undefined;
      });
    running = run;
    return run;
  }

  async function current(): Promise<RolePermission[]> {
    const rows = (await permissions().findMany({
      where: { ...ours, role: { code: { $ne: SUPER_ADMIN } } },
      populate: ['role'],
    })) as PermissionRow[];
    return rows.flatMap(({ action, actionParameters, subject, properties, conditions, role }) =>
      role
        ? [{ action, actionParameters, subject, properties, conditions, role: role.id, roleCode: role.code }]
        : []
    );
  }

  /** Whether the last start ran without the plugin: the Super Admin lacks the plugin's actions. */
  async function startedWithout(): Promise<boolean> {
    const marker = await permissions().count({
      where: { action: MARKER_ACTION, role: { code: SUPER_ADMIN } },
    });
    return marker === 0;
  }

  const service = {
    /**
     * Keeps the roles' current permissions; not while the database lacks the marker: a start
     * without the plugin (here, or another instance on the same database) has emptied them, and
     * remembering that would lose what the next start with the plugin gives back.
     */
    async remember(): Promise<void> {
      if (forgotten || (await startedWithout())) return;
      await store().set({ ...MEMORY, value: await current() });
    },

    /**
     * Puts back the remembered permissions a start without the plugin deleted, for the roles that
     * still exist; none on a first start, or after a start with the plugin. Answers how many.
     */
    async restore(): Promise<number> {
      // Strapi's store answers a row that no longer parses with an Invalid Date.
      const remembered = rememberedOurs(await store().get(MEMORY));
      if (remembered.length === 0 || !(await startedWithout())) return 0;
      const roles = (await strapi.db.query('admin::role').findMany({ select: ['id', 'code'] })) as {
        id: number;
        code: string;
      }[];
      const existing = new Set(roles.map(({ id, code }) => `${id} ${code}`));
      const present = new Set((await current()).map(identify));
      const missing = remembered.filter(
        (permission) =>
          existing.has(`${permission.role} ${permission.roleCode}`) && !present.has(identify(permission))
      );
      for (const { roleCode, ...permission } of missing) await permissions().create({ data: permission });
      return missing.length;
    },

    /**
     * Remembers again after every change to admin permissions, once it is committed: the admin
     * writes a role's permissions inside a transaction, read before its end they would be the old ones.
     */
    watch(): void {
      const rememberSoon = () => {
        clearTimeout(pending);
        pending = setTimeout(() => {
          pending = undefined;
          rememberLogged();
        }, 100);
        pending.unref();
      };
      const afterCommit = () =>
        strapi.db.transaction(async ({ onCommit }) => {
          onCommit(rememberSoon);
        });
      strapi.db.lifecycles.subscribe({
        models: ['admin::permission'],
        ...Object.fromEntries(CHANGES.map((event) => [event, afterCommit])),
      });
    },

    /** Forgets the roles for good (an uninstall deletes the memory): a change still waiting is dropped, one under way finishes first. */
    async forget(): Promise<void> {
      forgotten = true;
      clearTimeout(pending);
      pending = undefined;
      // One already reading the roles would write after the caller deleted the memory.
      await running;
    },

    /**
     * Remembers a change still waiting for its moment, or waits for the remembering under way:
     * Strapi stops, and the memory must be current before its connection closes.
     */
    async flush(): Promise<void> {
      if (!pending) return running;
      clearTimeout(pending);
      pending = undefined;
      await rememberLogged();
    },
  };
  return service;
};
