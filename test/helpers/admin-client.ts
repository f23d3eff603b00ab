import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { Site } from './site';

/** The roles a fresh Strapi creates: Super Admin holds every permission, Editor and Author none of ours. */
export type AdminRole = 'strapi-super-admin' | 'strapi-editor' | 'strapi-author';

export type AdminReply = { status: number; body: any; text: string };

export type AdminClient = {
  /** `headers` are sent as given, Host included (fetch would replace a Host header with its own). */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>
  ): Promise<AdminReply>;
};

const PASSWORD = 'Sup3r-secret-password';

/**
 * An admin user of the given role, created with Strapi's own admin services, logged in
 * through `POST /admin/login` like the admin panel, calling the admin API with its JWT.
 */
export async function loginAs(site: Site, role: AdminRole): Promise<AdminClient> {
  const roleRow = await adminServices(site).role.findOne({ code: role });
  if (!roleRow) throw new Error(`No admin role with code ${role}`);
  return loginWithRole(site, roleRow.id, role);
}

/** One permission of a role: an action, optionally on a subject, limited to fields or by conditions. */
export type PermissionSpec = {
  action: string;
  subject?: string;
  properties?: { fields?: string[]; locales?: string[] };
  conditions?: string[];
};

/**
 * An admin user of a new role that holds exactly `permissions` (e.g.
 * "plugin::publish-bridge.settings.read", or a Content Manager action on one type, limited).
 */
export async function loginWithPermissions(
  site: Site,
  permissions: Array<string | PermissionSpec>
): Promise<AdminClient> {
  const admin = adminServices(site);
  const specs = permissions.map((permission) =>
    typeof permission === 'string' ? { action: permission } : permission
  );
  const name = `Only ${specs.map(({ action }) => action).join(', ')} ${randomBytes(4).toString('hex')}`;
  const role = await admin.role.create({ name, description: 'Created by a test' });
  await admin.role.assignPermissions(
    role.id,
    specs.map(({ action, subject = null, properties = {}, conditions = [] }) => ({
      action,
      subject,
      properties,
      conditions,
    }))
  );
  return loginWithRole(site, role.id, `role-${role.id}`);
}

const adminServices = (site: Site) => (site.strapi as any).admin.services;

async function loginWithRole(site: Site, roleId: number, label: string): Promise<AdminClient> {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
  await adminServices(site).user.create({
    email,
    firstname: 'Test',
    lastname: label,
    password: PASSWORD,
    isActive: true,
    registrationToken: null,
    roles: [roleId],
  });
  const login = await client(site).request('POST', '/admin/login', { email, password: PASSWORD });
  const token = login.body?.data?.token;
  if (!token) throw new Error(`Login as ${label} failed with HTTP ${login.status}`);
  return client(site, token);
}

/** A caller without any admin session. */
export const anonymous = (site: Site): AdminClient => client(site);

function client(site: Site, token?: string): AdminClient {
  return {
    request(method, path, body, headers = {}) {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      return new Promise((resolve, reject) => {
        // No pooled sockets: one left open after the site stops would keep jest waiting.
        const request = http.request(`${site.baseUrl}${path}`, {
          method,
          agent: false,
          headers: {
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
            ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
            ...headers,
          },
        });
        request.on('error', reject);
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: response.statusCode ?? 0, body: parseOrText(text), text });
          });
        });
        request.end(payload);
      });
    },
  };
}

/** Left as text when it is not JSON, so a failing assertion shows what came back. */
function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Which of the plugin's types the Content Manager puts in its menu, as its admin API tells the panel, by name. */
export async function pluginTypesDisplayed(admin: AdminClient): Promise<Record<string, boolean>> {
  const reply = await admin.request('GET', '/content-manager/content-types');
  if (reply.status !== 200)
    throw new Error(`GET /content-manager/content-types: ${reply.status} ${reply.text}`);
  const types: { uid: string; isDisplayed: boolean }[] = reply.body.data;
  return Object.fromEntries(
    types
      .filter(({ uid }) => uid.startsWith('plugin::publish-bridge.'))
      .map(({ uid, isDisplayed }) => [uid.slice('plugin::publish-bridge.'.length), isDisplayed])
  );
}

/** What an admin does on the settings page: "When an editor changed a post in Strapi". */
export async function chooseEditorChangePolicy(admin: AdminClient, policy: string): Promise<void> {
  const reply = await admin.request('PUT', '/publish-bridge/settings', { editorChanges: policy });
  if (reply.status !== 200 || reply.body?.data?.editorChanges !== policy)
    throw new Error(`choosing the editor changes policy "${policy}": ${reply.status} ${reply.text}`);
}
