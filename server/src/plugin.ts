import type { Core } from '@strapi/strapi';
import type { PluginConfig } from './config';
import type { Connection, ConnectionOverrides } from './config/connections';
import { PLUGIN_ID } from './constants';
import { connectionInScope } from './utils/connection-scope';

/**
 * Each of the plugin's services as its factory makes it. `services/index.ts` fills this in by
 * declaration merging, as Strapi types its own registries, so that this module, which every
 * service imports, imports none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by services/index.ts
export interface Services {}

/**
 * One of the plugin's services, typed: a renamed method no longer compiles. Looked up at each
 * call, as Strapi keeps them, so that a service replaced at run time (as tests do) is the one used.
 */
export function getService<Name extends keyof Services>(strapi: Core.Strapi, name: Name): Services[Name] {
  return strapi.plugin(PLUGIN_ID).service(name) as Services[Name];
}

/**
 * The plugin's config, as `config/index.ts` validated it at boot, with what the connection in
 * scope sets over it: an object option merged key by key, any other replaced. Read live, as
 * Strapi's config may be set at run time.
 */
export function pluginConfig(strapi: Core.Strapi): PluginConfig {
  return configOf(strapi, connectionInScope());
}

/** The plugin's config as `connection` sees it: for work that serves each connection in turn. */
export function configOf(strapi: Core.Strapi, connection: Connection | undefined): PluginConfig {
  const config = strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig;
  const overrides = connection?.overrides;
  return overrides && Object.keys(overrides).length > 0 ? withOverrides(config, overrides) : config;
}

function withOverrides(config: PluginConfig, overrides: ConnectionOverrides): PluginConfig {
  const merged: Record<string, unknown> = { ...config };
  for (const [option, value] of Object.entries(overrides)) {
    const inherited = merged[option];
    merged[option] = isPlainObject(inherited) && isPlainObject(value) ? { ...inherited, ...value } : value;
  }
  return merged as PluginConfig;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
