import type { Core } from '@strapi/strapi';
import { CAPABILITIES, type Capability, type CapabilitySettings } from '../../contract/capabilities';
import type { PluginConfig } from '../../config';
import { DEFAULT_CONNECTION } from '../../config/connections';
import { MIN_KEY_LENGTH, PLUGIN_ID } from '../../constants';
import { newProbeSecret } from '../../utils/connection-probe';
import type { SettingsDescription } from '#contract/admin/settings';
import type { EditorChangePolicy } from '../../contract/editor-change-policies';
import { ContractError } from '../../contract/errors';
import { getService, pluginConfig } from '../../plugin';
import { inConnection } from '../../utils/connection-scope';

/** What the plugin keeps in Strapi's core store. Keys are stored encrypted, never in plain text. */
export type StoredSettings = {
  apiKey?: StoredSecret;
  /** The key replaced by the last rotation, honoured until `acceptUntil` (ms since epoch). */
  previousApiKey?: StoredSecret & { acceptUntil: number };
  capabilities?: Partial<Record<Capability, boolean>>;
  /**
   * This Strapi's public address as an admin with the update permission set it; takes precedence
   * over server.url for the base URL, e.g. when the publisher reaches Strapi by another name.
   */
  publicUrl?: string;
  /**
   * Where the platform's delivery log is read, and the key its log endpoint accepts. The key is
   * only ever sent to the origin it was saved for: a new origin without a new key drops it.
   */
  platform?: { url?: string; apiKey?: StoredSecret };
  editorChanges?: EditorChangePolicy;
};

export type StoredSecret = { ciphertext: string; last4: string; setAt: string };

export type ConnectionStatus = { lastHandshakeAt?: string };

export type SettingsChanges = {
  connectionKey?: { value: string; graceMs: number };
  capabilities?: Partial<Record<Capability, boolean>>;
  /** An empty string removes it. */
  publicUrl?: string;
  /** An empty `url` removes it; `key` replaces the stored one. */
  platform?: { url?: string; key?: string };
  editorChanges?: EditorChangePolicy;
};

const SETTINGS_KEY = 'settings';

/** For the site's administrator, on the settings page and to the verified publisher. */
const unreadableSettings = (key: string) =>
  `The plugin's settings in Strapi's database (the row "plugin_${PLUGIN_ID}_${key}" of strapi_core_store_settings) can no longer be read, so the plugin cannot tell which connection key and capabilities you chose. To mend it, save the plugin's settings page with the connection key (the row is written anew).`;

/** For anyone: the request could not be verified, and nothing names the site's configuration. */
const UNVERIFIABLE = `The site cannot verify requests now: its stored connection settings cannot be read. Its administrator sees the cause on the plugin's settings page in Strapi's admin; send the request again once it is mended.`;

/** For anyone: the site's connection key cannot serve, and nothing names its configuration (a weak key's length would hint at a cut copy of the real one). */
const UNUSABLE_KEY = `The site cannot verify requests now: its connection key is not set up as it should be. Its administrator sees the cause on the plugin's settings page in Strapi's admin and in the server log; send the request again once it is mended.`;

/** For the site's administrator, on the settings page and in the log. */
const weakEnvironmentKey = (variable: string, length: number) =>
  `${variable} is ${length} characters long; a connection key needs at least ${MIN_KEY_LENGTH} characters. Copy the whole key the publisher generated into ${variable}, or unset it to paste the key in Settings > Publish Bridge, and restart Strapi.`;

/** Strapi's store answers a row whose JSON no longer parses with an Invalid Date rather than an error. */
const isSettingsObject = (value: unknown): value is StoredSettings =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
const STATUS_KEY = 'status';
const PROBE_SECRET_KEY = 'probeSecret';

export class SettingsError extends Error {}

const mask = (secret: string) => secret.slice(-4);

const onInAny = (each: CapabilitySettings[]): CapabilitySettings =>
  Object.fromEntries(
    CAPABILITIES.map((name) => [name, each.some((capabilities) => capabilities[name])])
  ) as CapabilitySettings;

const originOf = (url: string | undefined) => (url ? new URL(url).origin : undefined);

/** The plugin's address under an origin; the settings overview also builds one from a request's origin. */
export const joinPrefix = (origin: string, prefix: string) => `${origin.replace(/\/+$/, '')}${prefix}`;

// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const store = () => strapi.store({ type: 'plugin', name: PLUGIN_ID });
  const connection = () => getService(strapi, 'connections').current();
  /**
   * Each connection keeps its own settings and status rows; `default` keeps the rows the plugin
   * had before connections, so a site that adds connections keeps its key for that one.
   */
  const rowOf = (key: string) => {
    const { name } = connection();
    return name === DEFAULT_CONNECTION ? key : `connections.${name}.${key}`;
  };
  const cached = new Map<string, { settings: StoredSettings; expiresAt: number }>();

  const config = (): PluginConfig => pluginConfig(strapi);
  const encryption = () =>
    strapi.service('admin::encryption') as {
      encrypt(value: string): string | null;
      decrypt(value: string): string | null;
    };

  let probeSecret: Promise<string> | undefined;

  async function readOrMakeProbeSecret(): Promise<string> {
    const stored = await store().get({ key: PROBE_SECRET_KEY });
    if (typeof stored === 'string') return stored;
    await store().set({ key: PROBE_SECRET_KEY, value: newProbeSecret() });
    // Instances that made one at the same moment all take the one the store kept.
    return (await store().get({ key: PROBE_SECRET_KEY })) as string;
  }

  const availability = () => getService(strapi, 'availability');
  /** The rows the last read found unreadable; the routes are out of service meanwhile. */
  const unreadable = new Set<string>();

  /**
   * The stored settings; an unreadable row reads as none, never as the defaults on the contract
   * routes: they answer 503 naming it until an admin saves the page, which writes it anew.
   */
  async function readStored(): Promise<StoredSettings> {
    const key = rowOf(SETTINGS_KEY);
    const stored = await store().get({ key });
    if (stored !== null && !isSettingsObject(stored)) {
      unreadable.add(key);
      availability().outOfService(key, unreadableSettings(key), 'error', connection().name);
    } else {
      unreadable.delete(key);
      availability().backInService(key);
    }
    return isSettingsObject(stored) ? stored : {};
  }

  async function read(): Promise<StoredSettings> {
    const now = Date.now();
    const kept = cached.get(rowOf(SETTINGS_KEY));
    if (kept && kept.expiresAt > now) return kept.settings;
    const settings = await readStored();
    cached.set(rowOf(SETTINGS_KEY), { settings, expiresAt: now + config().settingsCacheMs });
    return settings;
  }

  /** Read-modify-write from the store itself: a cached copy could undo another instance's change. */
  async function modify(change: (settings: StoredSettings) => StoredSettings) {
    const key = rowOf(SETTINGS_KEY);
    const next = change(await readStored());
    await store().set({ key, value: next });
    cached.delete(key);
    unreadable.delete(key);
    availability().backInService(key);
  }

  const inEachConnection = <Result>(read: () => Result): Result[] =>
    getService(strapi, 'connections')
      .list()
      .map((connection) => inConnection(connection, read));

  /** A capability nothing stores is never in force, whoever switched it on: the handshake would promise what goes nowhere. */
  function capabilitiesInForce(chosen: Partial<Record<Capability, boolean>>): CapabilitySettings {
    const support = getService(strapi, 'mapping').capabilitySupport();
    const configured = config().capabilities;
    return Object.fromEntries(
      CAPABILITIES.map((name) => [
        name,
        support[name].servable && (chosen[name] ?? configured[name] ?? support[name].byDefault),
      ])
    ) as CapabilitySettings;
  }

  function seal(secret: string): StoredSecret {
    const ciphertext = encryption().encrypt(secret);
    if (!ciphertext) {
      throw new SettingsError(
        'Strapi has no encryption key (admin.secrets.encryptionKey, usually ENCRYPTION_KEY in .env), so keys cannot be stored safely and the plugin will not keep them in plain text. Set it and restart Strapi; for the connection key you can set PUBLISH_BRIDGE_API_KEY instead.'
      );
    }
    return { ciphertext, last4: mask(secret), setAt: new Date().toISOString() };
  }

  const unseal = (secret: StoredSecret | undefined) =>
    secret ? encryption().decrypt(secret.ciphertext) : null;

  const environmentKey = () => process.env[connection().keyVariable] || undefined;

  function rotateKey(settings: StoredSettings, apiKey: string, graceMs: number): StoredSettings {
    const next: StoredSettings = { ...settings, apiKey: seal(apiKey) };
    delete next.previousApiKey;
    if (graceMs > 0 && settings.apiKey) {
      next.previousApiKey = { ...settings.apiKey, acceptUntil: Date.now() + graceMs };
    }
    return next;
  }

  /**
   * A key saved for one origin is never sent to another: moving the URL to a new origin (or
   * removing it) drops the stored key unless the same save brings a new one.
   */
  function changePlatform(settings: StoredSettings, changes: NonNullable<SettingsChanges['platform']>) {
    const platform = { ...settings.platform };
    if (changes.url !== undefined) {
      if (changes.url === '') delete platform.url;
      else platform.url = changes.url;
      if (originOf(platform.url) !== originOf(settings.platform?.url)) delete platform.apiKey;
    }
    if (changes.key !== undefined) platform.apiKey = seal(changes.key);
    return { ...settings, platform };
  }

  function changePublicUrl(settings: StoredSettings, publicUrl: string): StoredSettings {
    const next: StoredSettings = { ...settings, publicUrl };
    if (publicUrl === '') delete next.publicUrl;
    return next;
  }

  /** Strapi's `server.url` when it is an absolute URL (a relative one only names a path). */
  function serverUrl(): string | undefined {
    const url = strapi.config.get('server.url') as string | undefined;
    return url && /^https?:\/\//i.test(url) ? url : undefined;
  }

  return {
    environmentKey,

    /**
     * The `{base_url}` to register with the publisher, from configuration only: the public URL
     * saved on the settings page, else Strapi's `server.url`. Undefined when neither is set.
     * Never built from a request: its Host (or X-Forwarded-Host) is whatever the caller sent.
     */
    async configuredBaseUrl(): Promise<{ url: string; source: 'settings' | 'server.url' } | undefined> {
      const { publicUrl } = await read();
      if (publicUrl) return { url: joinPrefix(publicUrl, connection().path), source: 'settings' };
      const fromServer = serverUrl();
      return fromServer
        ? { url: joinPrefix(fromServer, connection().path), source: 'server.url' }
        : undefined;
    },

    /**
     * Why the key in the environment cannot serve, or undefined when it can (or there is none).
     * A weak one would protect every route with it: it takes the routes out of service (logged
     * once, at warn: the site serves) until the variable holds a whole key; it is read per
     * request, so a whole one serves at once.
     */
    checkEnvironmentKey(): string | undefined {
      const { keyVariable } = connection();
      const key = environmentKey();
      if (key && key.length < MIN_KEY_LENGTH) {
        const reason = weakEnvironmentKey(keyVariable, key.length);
        availability().outOfService(keyVariable, reason, 'warn', connection().name);
        return reason;
      }
      availability().backInService(keyVariable);
      return undefined;
    },

    /** Keys that authenticate a request now: the current one first, then a rotated-out one in its grace period. */
    async acceptedKeys(): Promise<string[]> {
      // Read first even when the key comes from the environment: an unreadable row takes the
      // routes out of service before the request runs, instead of serving on the defaults.
      const settings = await read();
      if (this.checkEnvironmentKey()) throw new ContractError(503, UNUSABLE_KEY);
      const fromEnvironment = this.environmentKey();
      if (fromEnvironment) return [fromEnvironment];
      if (unreadable.has(rowOf(SETTINGS_KEY))) throw new ContractError(503, UNVERIFIABLE);
      const keys = [unseal(settings.apiKey)];
      if (settings.previousApiKey && settings.previousApiKey.acceptUntil > Date.now()) {
        keys.push(unseal(settings.previousApiKey));
      }
      return keys.filter((key): key is string => Boolean(key));
    },

    /** The capabilities in force: the settings page's choice, else config's, else the mapping's. */
    async capabilities(): Promise<CapabilitySettings> {
      return capabilitiesInForce((await read()).capabilities ?? {});
    },

    /** The capabilities in force before the settings page is read (at registration, without a database). */
    configuredCapabilities(): CapabilitySettings {
      return capabilitiesInForce({});
    },

    /** What some connection has on, capability by capability: the site's menus show a type while any connection writes it. */
    async capabilitiesOfAnyConnection(): Promise<CapabilitySettings> {
      return onInAny(await Promise.all(inEachConnection(() => this.capabilities())));
    },

    /** The same before the settings rows can be read (at registration). */
    configuredCapabilitiesOfAnyConnection(): CapabilitySettings {
      return onInAny(inEachConnection(() => this.configuredCapabilities()));
    },

    async isEnabled(capability: Capability): Promise<boolean> {
      return (await this.capabilities())[capability];
    },

    /** Applies every change of one save in a single write, or none of them. */
    async update(changes: SettingsChanges) {
      if (changes.connectionKey && environmentKey()) {
        throw new SettingsError(
          `The connection key is managed by the environment (${connection().keyVariable}), so it cannot be changed here. Change the variable and restart Strapi, or unset it to manage the key in this page.`
        );
      }
      await modify((settings) => {
        let next = settings;
        if (changes.connectionKey) {
          next = rotateKey(next, changes.connectionKey.value, changes.connectionKey.graceMs);
        }
        if (changes.capabilities) {
          next = { ...next, capabilities: { ...next.capabilities, ...changes.capabilities } };
        }
        if (changes.publicUrl !== undefined) next = changePublicUrl(next, changes.publicUrl);
        if (changes.platform) next = changePlatform(next, changes.platform);
        if (changes.editorChanges) next = { ...next, editorChanges: changes.editorChanges };
        return next;
      });
      // This instance's menus follow at once; other instances' at their next start.
      if (changes.capabilities)
        getService(strapi, 'mapping').showUsedTypes(await this.capabilitiesOfAnyConnection());
    },

    /** The platform's delivery-log endpoint and its key, decrypted for the server's own call. */
    async platform(): Promise<{ url?: string; apiKey?: string }> {
      const { platform } = await read();
      return { url: platform?.url, apiKey: unseal(platform?.apiKey) ?? undefined };
    },

    /** Everything the admin panel shows about the stored settings, with every key masked. */
    async describe(): Promise<SettingsDescription> {
      const settings = await read();
      const fromEnvironment = environmentKey();
      const previous = settings.previousApiKey;
      const connectionKey: SettingsDescription['connectionKey'] = fromEnvironment
        ? { configured: true, managedByEnvironment: true, last4: mask(fromEnvironment) }
        : {
            configured: Boolean(settings.apiKey),
            managedByEnvironment: false,
            last4: settings.apiKey?.last4 ?? '',
            setAt: settings.apiKey?.setAt,
            previousKeyAcceptedUntil:
              previous && previous.acceptUntil > Date.now()
                ? new Date(previous.acceptUntil).toISOString()
                : undefined,
          };
      const platformKey = settings.platform?.apiKey;
      return {
        connectionKey,
        publicUrl: settings.publicUrl,
        platform: {
          url: settings.platform?.url,
          key: platformKey ? { last4: platformKey.last4, setAt: platformKey.setAt } : undefined,
        },
        encryptionAvailable: Boolean(strapi.config.get('admin.secrets.encryptionKey')),
        editorChanges: await this.editorChangePolicy(),
      };
    },

    /** What an update does to fields an editor changed; `overwrite` until an admin chooses. */
    async editorChangePolicy(): Promise<EditorChangePolicy> {
      return (await read()).editorChanges ?? 'overwrite';
    },

    /**
     * The secret that answers the connection probe, made on first use and shared by every
     * instance through the store. Kept in plain text like the rest of the store's values: it only
     * proves that an address leads back to this site, and whoever reads the store has the site.
     */
    probeSecret(): Promise<string> {
      probeSecret ??= readOrMakeProbeSecret().catch((error) => {
        probeSecret = undefined;
        throw error;
      });
      return probeSecret;
    },

    async status(): Promise<ConnectionStatus> {
      return ((await store().get({ key: rowOf(STATUS_KEY) })) as ConnectionStatus | null) ?? {};
    },

    async recordHandshake(at = new Date()) {
      await store().set({
        key: rowOf(STATUS_KEY),
        value: { ...(await this.status()), lastHandshakeAt: at.toISOString() },
      });
    },
  };
};
