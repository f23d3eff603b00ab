import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';

/**
 * Whether the contract routes can serve, and why not when they cannot. A problem of the plugin's
 * own, such as a mapping that names an attribute the site has since removed, must never stop the
 * site: it starts, the Content Manager and Strapi's API serve, and the plugin's routes answer
 * 503 with the reason to the publisher's signed requests (the settings page shows it too).
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** One reason per cause (`mapping`, …), so a cause reported again is not repeated. */
  const reasons = new Map<string, string>();

  return {
    /** Takes the routes out of service for `cause`; logged once, as an error unless said otherwise. */
    outOfService(cause: string, reason: string, level: 'error' | 'warn' = 'error') {
      if (reasons.get(cause) === reason) return;
      reasons.set(cause, reason);
      strapi.log[level](`[${PLUGIN_ID}] the contract routes answer 503 until this is fixed: ${reason}`);
    },

    /** `cause` is mended: the routes serve again unless another cause holds them. */
    backInService(cause: string) {
      if (reasons.delete(cause))
        strapi.log.info(`[${PLUGIN_ID}] the contract routes serve again (${cause} mended)`);
    },

    /** Why the routes do not serve (for `cause` alone when given), or undefined while they do. */
    problem(cause?: string): string | undefined {
      if (cause !== undefined) return reasons.get(cause);
      return reasons.size > 0 ? [...reasons.values()].join(' ') : undefined;
    },
  };
};
