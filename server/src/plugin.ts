import type { Core } from '@strapi/strapi';
import type { PluginConfig } from './config';
import { PLUGIN_ID } from './constants';
import type services from './services';

/** Each of the plugin's services as its factory makes it. */
export type Services = { [Name in keyof typeof services]: ReturnType<(typeof services)[Name]> };

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
