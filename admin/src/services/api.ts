import { adminApi } from '@strapi/strapi/admin';
import type { GetActivity } from '#contract/admin/activity';
import type { TestConnection } from '#contract/admin/connection-test';
import type { GetPlatformLogs } from '#contract/admin/platform-logs';
import type { CancelSchedule, GetEntry, RestoreRevision } from '#contract/admin/revisions';
import type { GetSettings, UpdateSettings } from '#contract/admin/settings';

const unwrap = <R extends { data: unknown }>(response: R): R['data'] => response.data;

/** The connection a request is about (`?connection=`); none: the site's first. */
type ForConnection = { connection?: string };
const connectionParams = ({ connection }: ForConnection) => (connection ? { connection } : {});

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
      getPublishBridgeSettings: builder.query<GetSettings.Response['data'], ForConnection>({
        query: (about) => ({ url: '/publish-bridge/settings', config: { params: connectionParams(about) } }),
        transformResponse: unwrap<GetSettings.Response>,
        providesTags: ['PublishBridgeSettings'],
      }),
      updatePublishBridgeSettings: builder.mutation<
        UpdateSettings.Response['data'],
        ForConnection & { changes: UpdateSettings.Request['body'] }
      >({
        query: ({ changes, ...about }) => ({
          url: '/publish-bridge/settings',
          method: 'PUT',
          data: changes,
          config: { params: connectionParams(about) },
        }),
        transformResponse: unwrap<UpdateSettings.Response>,
        invalidatesTags: ['PublishBridgeSettings'],
      }),
      testPublishBridgeConnection: builder.mutation<TestConnection.Response['data'], ForConnection>({
        query: (about) => ({
          url: '/publish-bridge/connection-test',
          method: 'POST',
          config: { params: connectionParams(about) },
        }),
        transformResponse: unwrap<TestConnection.Response>,
        invalidatesTags: ['PublishBridgeSettings', 'PublishBridgeActivity'],
      }),
      getPublishBridgeActivity: builder.query<GetActivity.Response, GetActivity.Request['query']>({
        query: (params) => ({ url: '/publish-bridge/activity', config: { params } }),
        providesTags: ['PublishBridgeActivity'],
      }),
      getPublishBridgePlatformLogs: builder.query<GetPlatformLogs.Response['data'], ForConnection>({
        query: (about) => ({
          url: '/publish-bridge/platform-logs',
          config: { params: connectionParams(about) },
        }),
        transformResponse: unwrap<GetPlatformLogs.Response>,
      }),
      getPublishBridgeEntry: builder.query<GetEntry.Response['data'], GetEntry.Request['query']>({
        query: (params) => ({ url: '/publish-bridge/entries', config: { params } }),
        transformResponse: unwrap<GetEntry.Response>,
        providesTags: ['PublishBridgeEntry'],
      }),
      /* The panel, whose waiting publish this clears, is read again. */
      cancelPublishBridgeSchedule: builder.mutation<
        CancelSchedule.Response['data'],
        CancelSchedule.Request['query']
      >({
        query: (params) => ({
          url: '/publish-bridge/entries/schedule',
          method: 'DELETE',
          config: { params },
        }),
        transformResponse: unwrap<CancelSchedule.Response>,
        invalidatesTags: ['PublishBridgeEntry'],
      }),
      /*
       * The restore writes the entry's draft: the Content Manager's own copy of the document
       * ("Document" tag, as its document queries provide it) is read again.
       */
      restorePublishBridgeRevision: builder.mutation<
        RestoreRevision.Response['data'],
        { id: number; model: string; documentId: string }
      >({
        query: ({ id }) => ({ url: `/publish-bridge/revisions/${id}/restore`, method: 'POST' }),
        transformResponse: unwrap<RestoreRevision.Response>,
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
