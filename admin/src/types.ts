/**
 * Shapes of the plugin's admin API: what its routes answer is declared once, on the server side
 * (server/src/contract/admin-api.ts); what this page sends is declared here.
 */
export type {
  ActivityItem,
  ActivityPage,
  BaseUrlSource,
  CapabilityState,
  ConnectionTestResult,
  DeliveryLogEntry,
  EntryLocation,
  MaskedSecret,
  Outcome,
  Pagination,
  ResourceStorage,
  SettingsOverview as Settings,
} from '../../server/src/contract/admin-api';

export type SettingsUpdate = {
  connectionKey?: { value: string; graceMinutes: number };
  capabilities?: Record<string, boolean>;
  publicUrl?: string;
  platform?: { url?: string; key?: string };
};

export type ActivityQuery = { page?: string | number; pageSize?: string | number; filters?: unknown };
