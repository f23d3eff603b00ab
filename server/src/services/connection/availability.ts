import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { getService } from '../../plugin';

/**
 * Whether the contract routes can serve, and why not when they cannot. A problem of the plugin's
 * own, such as a mapping that names an attribute the site has since removed, must never stop the
 * site: it starts, the Content Manager and Strapi's API serve, and the plugin's routes answer
 * 503 with the reason to the publisher's signed requests (the settings page shows it too).
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  /**
   * One reason per cause (`mapping`, …), so a cause reported again is not repeated; a cause of
   * one connection's (its key, its settings row) takes only that connection out of service, and
   * is told only to its own publisher.
   */
  const reasons = new Map<string, { reason: string; connection?: string }>();
  const inScope = () => getService(strapi, 'connections').current().name;

  return {
    /**
     * Takes the routes out of service for `cause`: those of `connection` only, when given; logged
     * once, as an error unless said otherwise.
     */
    outOfService(cause: string, reason: string, level: 'error' | 'warn' = 'error', connection?: string) {
      if (reasons.get(cause)?.reason === reason) return;
      reasons.set(cause, { reason, connection });
      const routes = connection
        ? `connection "${connection}"'s contract routes answer`
        : 'the contract routes answer';
      strapi.log[level](`[${PLUGIN_ID}] ${routes} 503 until this is fixed: ${reason}`);
    },

    /** `cause` is mended: the routes serve again unless another cause holds them. */
    backInService(cause: string) {
      if (reasons.delete(cause))
        strapi.log.info(`[${PLUGIN_ID}] the contract routes serve again (${cause} mended)`);
    },

    /**
     * Why the routes of the connection in scope do not serve (for `cause` alone when given), or
     * undefined while they do: the site's causes and that connection's own, never another's.
     */
    problem(cause?: string): string | undefined {
      if (cause !== undefined) return reasons.get(cause)?.reason;
      const connection = inScope();
      const held = [...reasons.values()].filter((held) => !held.connection || held.connection === connection);
      return held.length > 0 ? held.map(({ reason }) => reason).join(' ') : undefined;
    },
  };
};
