import type { Core } from '@strapi/strapi';
import { CAPABILITIES, type Capability, type CapabilitySettings } from '../contract/capabilities';
import type { PluginConfig } from '../config';
import { API_KEY_ENV, PLUGIN_ID } from '../constants';

/** What the plugin keeps in Strapi's core store. Keys are stored encrypted, never in plain text. */
export type StoredSettings = {
  apiKey?: StoredSecret;
  /** The key replaced by the last rotation, honoured until `acceptUntil` (ms since epoch). */
  previousApiKey?: StoredSecret & { acceptUntil: number };
  capabilities?: Partial<Record<Capability, boolean>>;
};

export type StoredSecret = { ciphertext: string; last4: string; setAt: string };

export type ConnectionStatus = { lastHandshakeAt?: string };

const SETTINGS_KEY = 'settings';
const STATUS_KEY = 'status';

export class SettingsError extends Error {}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const store = () => strapi.store({ type: 'plugin', name: PLUGIN_ID });
  let cached: { settings: StoredSettings; expiresAt: number } | undefined;

  const config = (): PluginConfig => strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig;
  const encryption = () =>
    strapi.service('admin::encryption') as {
      encrypt(value: string): string | null;
      decrypt(value: string): string | null;
    };

  async function read(): Promise<StoredSettings> {
    const now = Date.now();
    if (cached && cached.expiresAt > now) return cached.settings;
    const settings = ((await store().get({ key: SETTINGS_KEY })) as StoredSettings | null) ?? {};
    cached = { settings, expiresAt: now + config().settingsCacheMs };
    return settings;
  }

  async function write(settings: StoredSettings) {
    await store().set({ key: SETTINGS_KEY, value: settings });
    cached = undefined;
  }

  function seal(secret: string): StoredSecret {
    const ciphertext = encryption().encrypt(secret);
    if (!ciphertext) {
      throw new SettingsError(
        'Strapi has no encryption key (admin.secrets.encryptionKey, usually ENCRYPTION_KEY in .env), so the connection key cannot be stored safely. Set it and restart Strapi, or set PUBLISH_BRIDGE_API_KEY instead.'
      );
    }
    return { ciphertext, last4: secret.slice(-4), setAt: new Date().toISOString() };
  }

  const unseal = (secret: StoredSecret | undefined) =>
    secret ? encryption().decrypt(secret.ciphertext) : null;

  return {
    config,

    environmentKey: () => process.env[API_KEY_ENV] || undefined,

    /** Keys that authenticate a request now: the current one first, then a rotated-out one in its grace period. */
    async acceptedKeys(): Promise<string[]> {
      const fromEnvironment = this.environmentKey();
      if (fromEnvironment) return [fromEnvironment];
      const settings = await read();
      const keys = [unseal(settings.apiKey)];
      if (settings.previousApiKey && settings.previousApiKey.acceptUntil > Date.now()) {
        keys.push(unseal(settings.previousApiKey));
      }
      return keys.filter((key): key is string => Boolean(key));
    },

    async capabilities(): Promise<CapabilitySettings> {
      const stored = (await read()).capabilities ?? {};
      const defaults = config().capabilities;
      return Object.fromEntries(
        CAPABILITIES.map((name) => [name, stored[name] ?? defaults[name] ?? false])
      ) as CapabilitySettings;
    },

    async isEnabled(capability: Capability): Promise<boolean> {
      return (await this.capabilities())[capability];
    },

    read,

    async setCapabilities(changes: Partial<Record<Capability, boolean>>) {
      const settings = await read();
      await write({ ...settings, capabilities: { ...settings.capabilities, ...changes } });
    },

    /** Stores a new key; the old one keeps working for `graceMs` so in-flight deliveries are not refused. */
    async setApiKey(apiKey: string, graceMs = 0) {
      const settings = await read();
      const next: StoredSettings = { ...settings, apiKey: seal(apiKey) };
      delete next.previousApiKey;
      if (graceMs > 0 && settings.apiKey) {
        next.previousApiKey = { ...settings.apiKey, acceptUntil: Date.now() + graceMs };
      }
      await write(next);
    },

    async status(): Promise<ConnectionStatus> {
      return ((await store().get({ key: STATUS_KEY })) as ConnectionStatus | null) ?? {};
    },

    async recordHandshake(at = new Date()) {
      await store().set({
        key: STATUS_KEY,
        value: { ...(await this.status()), lastHandshakeAt: at.toISOString() },
      });
    },
  };
};
