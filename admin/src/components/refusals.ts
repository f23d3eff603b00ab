import { useIntl } from 'react-intl';
import type { ActivityItem } from '../types';
import { getTranslation } from '../utils/getTranslation';
import type { Fact } from './DetailsModal';

/** The gate's refusal codes (server/src/contract/signature.ts `AuthFailureReason`), as the admin reads them. */
const REFUSAL_LABELS: Record<string, string> = {
  no_key_configured: 'no connection key set',
  missing_header: 'missing header',
  wrong_key: 'wrong key',
  malformed_timestamp: 'malformed timestamp',
  timestamp_in_seconds: 'timestamp in seconds',
  stale_timestamp: 'stale timestamp',
  future_timestamp: 'timestamp in the future',
  malformed_signature: 'malformed signature',
  signature_mismatch: 'signature mismatch',
  not_verified_by_gate: 'reached a route without passing the gate',
  signature_reused: 'signature already used',
};

/** Words for a row that counts refusals of unauthenticated requests (it has a `refusal` code). */
export function useRefusalText() {
  const { formatMessage, formatNumber } = useIntl();
  const t = (id: string, defaultMessage: string, values?: Record<string, string>) =>
    formatMessage({ id: getTranslation(id), defaultMessage }, values);

  const reason = (code: string) =>
    code in REFUSAL_LABELS ? t(`activity.refusal.${code}`, REFUSAL_LABELS[code]) : code;
  const source = (item: ActivityItem) =>
    item.sourceAddress ?? t('activity.refusal.otherAddresses', 'other addresses');

  return {
    /** "Refused 1,234× · wrong key · from 203.0.113.7" */
    summary: (item: ActivityItem & { refusal: string }) =>
      t('activity.refusal.summary', 'Refused {count}× · {reason} · from {source}', {
        count: formatNumber(item.count),
        reason: reason(item.refusal),
        source: source(item),
      }),
    facts: (item: ActivityItem & { refusal: string }, formatDateTime: (value: string) => string): Fact[] => [
      { label: t('activity.refusal.firstSeen', 'First refused'), value: formatDateTime(item.receivedAt) },
      {
        label: t('activity.refusal.lastSeen', 'Last refused'),
        value: item.lastSeenAt ? formatDateTime(item.lastSeenAt) : '-',
      },
      { label: t('activity.refusal.count', 'Requests refused'), value: formatNumber(item.count) },
      { label: t('activity.refusal.reason', 'Refused because'), value: reason(item.refusal) },
      { label: t('activity.refusal.source', 'Source address'), value: source(item) },
      { label: t('activity.refusal.sample', 'First request'), value: `${item.method} ${item.path}` },
      { label: t('activity.column.reason', 'Reason'), value: item.reason ?? '-' },
    ],
  };
}

export const isRefusalAggregate = (item: ActivityItem): item is ActivityItem & { refusal: string } =>
  typeof item.refusal === 'string';
