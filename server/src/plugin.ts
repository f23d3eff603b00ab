import type { Core } from '@strapi/strapi';
import type { PluginConfig } from './config';
import { PLUGIN_ID } from './constants';

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

/** The plugin's config, as `config/index.ts` validated it at boot. */
export function pluginConfig(strapi: Core.Strapi): PluginConfig {
  return strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig;
}
