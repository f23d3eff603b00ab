import { adminApi } from '@strapi/strapi/admin';
import type {
  ActivityPage,
  ActivityQuery,
  CancelledSchedule,
  ConnectionTestResult,
  DeliveryLogEntry,
  ManagedEntryPanel,
  RestoredRevision,
  RevisionsQuery,
  Settings,
  SettingsUpdate,
} from '../types';

const unwrap = <T>(response: { data: T }) => response.data;

/**
 * The plugin's admin API through Strapi's own RTK Query client (admin JWT, token refresh, error
 * shapes). Endpoint names share one namespace with every plugin's (i18n has a `getSettings`).
 */
const publishBridgeApi = adminApi
  .enhanceEndpoints({
    // Document: the Content Manager's tag for its copy of a document, which a restore changes.
    addTagTypes: ['PublishBridgeSettings', 'PublishBridgeActivity', 'PublishBridgeEntry', 'Document'],
  })
  .injectEndpoints({
    // Over 50 lines: the list of endpoints, one short entry per route of the admin API.
    endpoints: (builder) => ({
      getPublishBridgeSettings: builder.query<Settings, void>({
        query: () => '/publish-bridge/settings',
        transformResponse: unwrap<Settings>,
        providesTags: ['PublishBridgeSettings'],
      }),
      updatePublishBridgeSettings: builder.mutation<Settings, SettingsUpdate>({
        query: (data) => ({ url: '/publish-bridge/settings', method: 'PUT', data }),
        transformResponse: unwrap<Settings>,
        invalidatesTags: ['PublishBridgeSettings'],
      }),
      testPublishBridgeConnection: builder.mutation<ConnectionTestResult, void>({
        query: () => ({ url: '/publish-bridge/connection-test', method: 'POST' }),
        transformResponse: unwrap<ConnectionTestResult>,
        invalidatesTags: ['PublishBridgeSettings', 'PublishBridgeActivity'],
      }),
      getPublishBridgeActivity: builder.query<ActivityPage, ActivityQuery>({
        query: (params) => ({ url: '/publish-bridge/activity', config: { params } }),
        providesTags: ['PublishBridgeActivity'],
      }),
      getPublishBridgePlatformLogs: builder.query<DeliveryLogEntry[], void>({
        query: () => '/publish-bridge/platform-logs',
        transformResponse: unwrap<DeliveryLogEntry[]>,
      }),
      getPublishBridgeEntry: builder.query<ManagedEntryPanel, RevisionsQuery>({
        query: (params) => ({ url: '/publish-bridge/entries', config: { params } }),
        transformResponse: unwrap<ManagedEntryPanel>,
        providesTags: ['PublishBridgeEntry'],
      }),
      /* The panel, whose waiting publish this clears, is read again. */
      cancelPublishBridgeSchedule: builder.mutation<CancelledSchedule, RevisionsQuery>({
        query: (params) => ({
          url: '/publish-bridge/entries/schedule',
          method: 'DELETE',
          config: { params },
        }),
        transformResponse: unwrap<CancelledSchedule>,
        invalidatesTags: ['PublishBridgeEntry'],
      }),
      /*
       * The restore writes the entry's draft: the Content Manager's own copy of the document
       * ("Document" tag, as its document queries provide it) is read again.
       */
      restorePublishBridgeRevision: builder.mutation<
        RestoredRevision,
        { id: number; model: string; documentId: string }
      >({
        query: ({ id }) => ({ url: `/publish-bridge/revisions/${id}/restore`, method: 'POST' }),
        transformResponse: unwrap<RestoredRevision>,
        invalidatesTags: (_result, _error, { model, documentId }) => [
          'PublishBridgeEntry',
          { type: 'Document', id: `${model}_${documentId}` },
        ],
      }),
    }),
  });

export const {
  useGetPublishBridgeSettingsQuery,
  useUpdatePublishBridgeSettingsMutation,
  useTestPublishBridgeConnectionMutation,
  useGetPublishBridgeActivityQuery,
  useGetPublishBridgePlatformLogsQuery,
  useGetPublishBridgeEntryQuery,
  useCancelPublishBridgeScheduleMutation,
  useRestorePublishBridgeRevisionMutation,
} = publishBridgeApi;
