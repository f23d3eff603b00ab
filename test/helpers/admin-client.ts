import { randomBytes } from 'node:crypto';
import type { Site } from './site';

/** The roles a fresh Strapi creates: Super Admin holds every permission, Editor and Author none of ours. */
export type AdminRole = 'strapi-super-admin' | 'strapi-editor' | 'strapi-author';

export type AdminReply = { status: number; body: any; text: string };

export type AdminClient = {
  request(method: string, path: string, body?: unknown): Promise<AdminReply>;
};

const PASSWORD = 'Sup3r-secret-password';

/**
 * An admin user of the given role, created with Strapi's own admin services, logged in
 * through `POST /admin/login` like the admin panel, calling the admin API with its JWT.
 */
export async function loginAs(site: Site, role: AdminRole): Promise<AdminClient> {
  const admin = (site.strapi as any).admin.services;
  const roleRow = await admin.role.findOne({ code: role });
  if (!roleRow) throw new Error(`No admin role with code ${role}`);
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  await admin.user.create({
    email,
    firstname: 'Test',
    lastname: role,
    password: PASSWORD,
    isActive: true,
    registrationToken: null,
    roles: [roleRow.id],
  });
  const login = await fetch(`${site.baseUrl}/admin/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const { data } = (await login.json()) as { data?: { token?: string } };
  if (!data?.token) throw new Error(`Login as ${role} failed with HTTP ${login.status}`);
  return client(site, data.token);
}

/** A caller without any admin session. */
export const anonymous = (site: Site): AdminClient => client(site);

function client(site: Site, token?: string): AdminClient {
  return {
    async request(method, path, body) {
      const response = await fetch(`${site.baseUrl}${path}`, {
        method,
        headers: {
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Left as text so a failing assertion shows what came back.
      }
      return { status: response.status, body: parsed, text };
    },
  };
}
