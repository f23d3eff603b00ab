/**
 * Shapes of the plugin's admin API, declared once on the server side: what its routes answer
 * (server/src/contract/admin-api.ts) and what this page may send (the zod schemas the server
 * validates with, server/src/contract/admin-schemas.ts).
 */
export type {
  ActivityItem,
  ActivityPage,
  BaseUrlSource,
  CancelledSchedule,
  CapabilityState,
  ConnectionTestResult,
  DeliveryLogEntry,
  EntryLocation,
  ManagedEntryPanel,
  MaskedSecret,
  Outcome,
  Pagination,
  ResourceStorage,
  RestoredRevision,
  RevisionItem,
  SettingsOverview as Settings,
} from '../../server/src/contract/admin-api';

export type { ActivityQuery, RevisionsQuery, SettingsUpdate } from '../../server/src/contract/admin-schemas';
export type { EditorChangePolicy } from '../../server/src/contract/editor-change-policies';
