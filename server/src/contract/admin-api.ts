/**
 * The plugin's admin API (routes/admin.ts): what its routes answer, declared once. The server's
 * services build these and the settings page (admin/src) reads them, so the two cannot drift.
 * Types and constants only: no Strapi import, nothing the browser cannot load.
 */
import type { ResourceKind } from '../mapping/catalogue';
import type { Capability } from './capabilities';
import type { EditorChangePolicy } from './editor-change-policies';

export const OUTCOMES = ['success', 'rejected', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * A Strapi entry an id points at, for a link to the Content Manager; `title` is its entry title
 * (the Content Manager's main field), when the admin may read it.
 */
export type EntryLocation = { uid: string; documentId: string; title?: string };

/** One row of the activity log as the settings page lists it. */
export type ActivityItem = {
  id: number;
  receivedAt: string;
  requestId?: string;
  method: string;
  path: string;
  action: string;
  httpStatus: number;
  outcome: Outcome;
  entityId?: string;
  durationMs?: number;
  reason?: string;
  notes?: string[];
  entry?: EntryLocation;
  /** 1, or how many unauthenticated refusals an aggregate row counts. */
  count: number;
  /** Aggregates only: the refusal's code (`wrong_key`, ...), the address (none: other addresses), the last one's time. */
  refusal?: string;
  sourceAddress?: string;
  lastSeenAt?: string;
};

export type Pagination = { page: number; pageSize: number; pageCount: number; total: number };

/** GET /activity */
export type ActivityPage = {
  results: ActivityItem[];
  pagination: Pagination;
  filterOptions: { outcome: readonly Outcome[]; action: readonly string[] };
};

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

/** GET /settings; `status.lastRequest` comes only to admins who may read the logs. */
export type SettingsOverview = SettingsDescription & {
  baseUrl: string;
  baseUrlSource: BaseUrlSource;
  capabilities: CapabilityState[];
  /** `outOfService`: why the contract routes answer 503 (a mapping that no longer fits the site), if they do. */
  status: { lastHandshakeAt?: string; lastRequest?: ActivityItem; outOfService?: string };
  storage: ResourceStorage[];
};

/** What a site declared in a successful handshake, as the server parsed it: never another server's raw answer. */
export type ParsedHandshake = {
  contract: string;
  version: string;
  site: { name: string; url: string };
  capabilities: Capability[];
};

/** POST /connection-test */
export type ConnectionTestResult = {
  ok: boolean;
  /** The handshake URL the server called: the base URL plus `/handshake`; none when nothing was signed. */
  url?: string;
  /** What the user should know or do next, in one sentence or two. */
  message: string;
  status?: number;
  durationMs?: number;
  handshake?: ParsedHandshake;
};

/** One delivery as the platform reports it (contract section 2.10), with its Strapi entry when it exists. */
export type DeliveryLogEntry = {
  log_id: string;
  action: string;
  status: string;
  external_id: string;
  create_at: string;
  request_payload: string;
  response_payload: string;
  entry?: EntryLocation;
};

/** GET /revisions: an entry's values as they were before the plugin overwrote or deleted them. */
export type RevisionItem = {
  id: number;
  createdAt: string;
  /** `update`: the platform's update replaced what an editor changed; `delete`: the entry was deleted. */
  reason: 'update' | 'delete';
  /** Contract field → attribute → value as it was (related entries and files as read, one level deep). */
  fields: Record<string, Record<string, unknown>>;
};

/** A relation a restore left out: what it pointed at was deleted since. `field` is the attribute. */
export type LeftOutRelation = { field: string; reason: string };

/** DELETE /entries/schedule */
export type CancelledSchedule = { cancelled: true };

/** POST /revisions/:id/restore */
export type RestoredRevision = { documentId: string; recreated: boolean; leftOut: LeftOutRelation[] };

/** GET /entries: what the Content Manager's side panel shows for an entry. */
export type ManagedEntryPanel =
  | { managed: false }
  | {
      managed: true;
      /** The publisher's source_id for a post, when the registry holds it as sent. */
      sourceId?: string;
      lastDelivery?: ActivityItem;
      /** When its publish waits for (a post sent with a future date), as an ISO time. */
      scheduledAt?: string;
      /** Whether a publish waits and the admin may publish the entry, and so cancel it (DELETE /entries/schedule). */
      mayCancelSchedule: boolean;
      /**
       * The link the platform was last answered for the entry: for a draft, the URL Strapi's
       * Preview builds (`urlKind` preview), where the site configured Preview; else its public URL.
       * Absent when the site has no URL template for the type, or the admin may not read the slug.
       */
      url?: string;
      urlKind?: 'public' | 'preview';
      /** Fields someone changed in Strapi since the platform last sent them. */
      changedByEditors: string[];
      revisions: RevisionItem[];
    };
