/**
 * The admin API's shapes the settings page's components read, under the names they use. Each
 * route's request and answer are declared once, beside the zod schema the server validates
 * with, in server/src/contract/admin/ (one file per route group, shared ones in common.ts);
 * both sides import them through the `#contract/*` alias. services/api.ts types its endpoints
 * with the routes' `Request` and `Response` there.
 */
export type { ActivityItem, EntryLocation, Outcome } from '#contract/admin/common';
export type { ActivityQuery } from '#contract/admin/activity';
export type { ConnectionTestResult } from '#contract/admin/connection-test';
export type { DeliveryLogEntry } from '#contract/admin/platform-logs';
export type { ManagedEntryPanel, RevisionItem, RevisionsQuery } from '#contract/admin/revisions';
export type { SettingsOverview as Settings, SettingsUpdate } from '#contract/admin/settings';
export type { EditorChangePolicy } from '#contract/editor-change-policies';
