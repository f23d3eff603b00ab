import { useAPIErrorHandler, type BaseQueryError } from '@strapi/strapi/admin';
import type { useGetPublishBridgeSettingsQuery } from '../services/api';

/** An error as the plugin's admin API hooks give it: Strapi's BaseQueryError, or RTK's SerializedError. */
type ApiError = NonNullable<ReturnType<typeof useGetPublishBridgeSettingsQuery>['error']>;

/** Strapi's own text for an error from the plugin's admin API (services/api.ts). */
export function useApiErrorText() {
  const { _unstableFormatAPIError: formatAPIError } = useAPIErrorHandler();
  // Strapi's formatter also reads a SerializedError (a request that threw; without a message it
  // says "Unknown error occurred."), though its type names only BaseQueryError: the one cast is here.
  return (error: ApiError) => formatAPIError(error as BaseQueryError);
}
