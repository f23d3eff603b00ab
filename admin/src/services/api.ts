import { adminApi } from '@strapi/strapi/admin';
import type {
  ActivityPage,
  ActivityQuery,
  ConnectionTestResult,
  DeliveryLogEntry,
  Settings,
  SettingsUpdate,
} from '../types';

const unwrap = <T>(response: { data: T }) => response.data;

/**
 * The plugin's admin API through Strapi's own RTK Query client (admin JWT, token refresh, error
 * shapes). Endpoint names share one namespace with every plugin's (i18n has a `getSettings`).
 */
const publishBridgeApi = adminApi
  .enhanceEndpoints({ addTagTypes: ['PublishBridgeSettings', 'PublishBridgeActivity'] })
  .injectEndpoints({
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
    }),
  });

export const {
  useGetPublishBridgeSettingsQuery,
  useUpdatePublishBridgeSettingsMutation,
  useTestPublishBridgeConnectionMutation,
  useGetPublishBridgeActivityQuery,
  useGetPublishBridgePlatformLogsQuery,
} = publishBridgeApi;
