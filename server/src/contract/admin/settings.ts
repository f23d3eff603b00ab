/** GET and PUT /settings: the connection, the capabilities and how the site stores each resource. */
import { z } from 'zod';
import { MIN_KEY_LENGTH } from '../../constants';
import type { ResourceKind } from '../../mapping/catalogue';
import { needsHttps } from '../addresses';
import { CAPABILITIES, type Capability } from '../capabilities';
import { EDITOR_CHANGE_POLICIES, type EditorChangePolicy } from '../editor-change-policies';
import type { ActivityItem, Data } from './common';

/** A key as the admin panel may see it: never the key, only its last characters. */
export type MaskedSecret = { last4: string; setAt?: string };

/**
 * Where the base URL comes from. Only 'settings' and 'server.url' were set by someone trusted
 * with the configuration; 'request' is the address the admin's browser used, shown as a guess.
 */
export type BaseUrlSource = 'settings' | 'server.url' | 'request';

/** The stored settings as the admin may see them. */
export type SettingsDescription = {
  connectionKey: MaskedSecret & {
    configured: boolean;
    managedByEnvironment: boolean;
    previousKeyAcceptedUntil?: string;
  };
  /** The public URL saved on the settings page, when one is. */
  publicUrl?: string;
  platform: { url?: string; key?: MaskedSecret };
  encryptionAvailable: boolean;
  /** What an update does to fields an editor changed ("When an editor changed a post in Strapi"). */
  editorChanges: EditorChangePolicy;
};

export type CapabilityState = {
  name: Capability;
  enabled: boolean;
  enabledByDefault: boolean;
  /** Whether the site's mapping stores what the capability carries; an unavailable one is never declared. */
  available: boolean;
  /** Why it is unavailable and how to change that, for the admin. */
  unavailableReason?: string;
};

/** Where a resource is stored (read-only: the mapping lives in the site's code). */
export type ResourceStorage = {
  resource: ResourceKind;
  uid: string;
  displayName: string;
  ownedByPlugin: boolean;
  fields: { field: string; attribute: string; storedAs: string }[];
  unmapped: string[];
};

/** What both routes answer; `status.lastRequest` comes only to admins who may read the logs. */
/** One of the site's connections (config `connections`), as the settings page lists them all. */
export type ConnectionSummary = {
  name: string;
  baseUrl: string;
  keyConfigured: boolean;
  /** Its own `locale`, else the top-level one; none: the site's default locale. */
  locale?: string;
  lastHandshakeAt?: string;
};

/**
 * GET /settings describes one connection, `connection` (the one `?connection=` names, else the
 * first), and lists them all.
 */
export type SettingsOverview = SettingsDescription & {
  connection: string;
  connections: ConnectionSummary[];
  baseUrl: string;
  baseUrlSource: BaseUrlSource;
  capabilities: CapabilityState[];
  /** `outOfService`: why the contract routes answer 503 (a mapping that no longer fits the site), if they do. */
  status: { lastHandshakeAt?: string; lastRequest?: ActivityItem; outOfService?: string };
  storage: ResourceStorage[];
};

const MAX_GRACE_MINUTES = 7 * 24 * 60;
const key = z
  .string()
  .trim()
  .min(MIN_KEY_LENGTH, {
    error: `is too short: paste the whole key (at least ${MIN_KEY_LENGTH} characters)`,
  })
  .max(512, { error: 'is too long (at most 512 characters)' })
  .regex(/^\S+$/, { error: 'must not contain spaces or line breaks' });

const isValidSoFar = (payload: { issues: unknown[] }) => payload.issues.length === 0;

/**
 * An address a key will be sent to: absolute http(s), without credentials (they would be shown
 * and logged in clear), query or fragment (paths are appended to it). An empty string clears it.
 */
const addressSetting = z
  .string()
  .trim()
  .pipe(
    z.union([
      z.literal(''),
      z
        .url({
          protocol: /^https?$/,
          error: 'must be an absolute http(s) URL, e.g. https://cms.example.com',
          // Not `abort`: the union reports the problems of the one branch that did not abort, so
          // this message reaches the admin rather than "is not in any of the accepted forms".
        })
        // The checks below parse the URL: they run only on one that passed the check above.
        .refine((value) => !/[?#]/.test(value), {
          error: 'must not contain a query (?) or a fragment (#)',
          when: isValidSoFar,
        })
        .refine(
          (value) => {
            const { username, password } = new URL(value);
            return username === '' && password === '';
          },
          { error: 'must not contain a user name or password', when: isValidSoFar }
        ),
    ])
  );

/** PUT /settings's body: the server validates with it, the settings form before sending. */
export const settingsUpdateSchema = z
  .object({
    connectionKey: z
      .object({
        value: key,
        /** How long the replaced key keeps working, so deliveries already on their way are not refused. */
        graceMinutes: z.number().int().min(0).max(MAX_GRACE_MINUTES).default(0),
      })
      .strict()
      .optional(),
    capabilities: z.partialRecord(z.enum(CAPABILITIES), z.boolean()).optional(),
    /** This Strapi's address as the publisher reaches it; "Test connection" sends the key there. */
    publicUrl: addressSetting.optional(),
    editorChanges: z.enum(EDITOR_CHANGE_POLICIES).optional(),
    platform: z
      .object({
        /** Where the platform key goes with every delivery-log request: never over plain HTTP to another machine. */
        url: addressSetting
          .refine((value) => !needsHttps(value), {
            error:
              'must start with https:// (the platform key is sent with every request); plain http:// is only for a platform on this machine',
          })
          .optional(),
        key: key.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type SettingsUpdate = z.input<typeof settingsUpdateSchema>;

/** GET /settings */
export declare namespace GetSettings {
  export type Response = Data<SettingsOverview>;
}

/** PUT /settings */
export declare namespace UpdateSettings {
  export type Request = { body: SettingsUpdate };
  export type Response = Data<SettingsOverview>;
}
