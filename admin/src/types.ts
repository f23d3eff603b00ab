/** Shapes of the plugin's admin API (server/src/controllers/admin-*.ts). */

export type MaskedSecret = { last4: string; setAt?: string };

export type EntryLocation = { uid: string; documentId: string };

export type Outcome = 'success' | 'rejected' | 'error';

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

export type Capability = { name: string; description: string; enabled: boolean; enabledByDefault: boolean };

/** Where the base URL comes from; 'request' is only the address this page was opened at: a guess. */
export type BaseUrlSource = 'settings' | 'server.url' | 'request';

export type Settings = {
  baseUrl: string;
  baseUrlSource: BaseUrlSource;
  /** The public URL saved on this page, when one is. */
  publicUrl?: string;
  connectionKey: MaskedSecret & {
    configured: boolean;
    managedByEnvironment: boolean;
    previousKeyAcceptedUntil?: string;
  };
  platform: { url?: string; key?: MaskedSecret };
  encryptionAvailable: boolean;
  capabilities: Capability[];
  /** `lastRequest` comes only to admins who may read the logs. */
  status: { lastHandshakeAt?: string; lastRequest?: ActivityItem };
  storage: ResourceStorage[];
};

export type ResourceStorage = {
  resource: string;
  uid: string;
  displayName: string;
  ownedByPlugin: boolean;
  fields: { field: string; attribute: string; storedAs: string }[];
  unmapped: string[];
};

export type SettingsUpdate = {
  connectionKey?: { value: string; graceMinutes: number };
  capabilities?: Record<string, boolean>;
  publicUrl?: string;
  platform?: { url?: string; key?: string };
};

export type ConnectionTestResult = {
  ok: boolean;
  /** Absent when nothing was signed: no public URL or key, or the address did not lead back to this site. */
  url?: string;
  message: string;
  status?: number;
  durationMs?: number;
  /** What the site declared in a successful handshake, parsed by the server: never another server's raw answer. */
  handshake?: {
    contract: string;
    version: string;
    site: { name: string; url: string };
    capabilities: string[];
  };
};

export type Pagination = { page: number; pageSize: number; pageCount: number; total: number };

export type ActivityPage = {
  results: ActivityItem[];
  pagination: Pagination;
  filterOptions: { outcome: Outcome[]; action: string[] };
};

export type ActivityQuery = { page?: string | number; pageSize?: string | number; filters?: unknown };

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
