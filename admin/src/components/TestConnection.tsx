import { Alert, Box, Button, Flex, Typography } from '@strapi/design-system';
import { Play } from '@strapi/icons';
import { useNotification } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useApiErrorText } from '../hooks/useApiErrorText';
import { useSelectedConnection } from '../hooks/useSelectedConnection';
import { useTestPublishBridgeConnectionMutation } from '../services/api';
import type { ConnectionTestResult } from '../types';
import { getTranslation } from '../utils/getTranslation';

/**
 * "Test connection": the server first checks with a keyless probe that its configured public base
 * URL leads back to this site, then signs a handshake and sends it there. Without a URL, or when
 * the URL leads elsewhere, it sends no key and its message says what to fix, so the button stays enabled.
 */
export const TestConnectionButton = ({ disabled }: { disabled?: boolean }) => {
  const { formatMessage } = useIntl();
  const { toggleNotification } = useNotification();
  const apiErrorText = useApiErrorText();
  const connection = useSelectedConnection();
  const [testConnection, { isLoading }] = useTestPublishBridgeConnectionMutation({
    fixedCacheKey: 'publish-bridge-test',
  });

  const run = async () => {
    const result = await testConnection({ connection });
    if ('error' in result && result.error) {
      toggleNotification({ type: 'danger', message: apiErrorText(result.error) });
    }
  };

  return (
    <Button variant="secondary" startIcon={<Play />} loading={isLoading} disabled={disabled} onClick={run}>
      {formatMessage({ id: getTranslation('test.button'), defaultMessage: 'Test connection' })}
    </Button>
  );
};

/** The last test's outcome, with what the handshake declared; never the raw answer of another server. */
export const TestConnectionResult = () => {
  const { formatMessage } = useIntl();
  const [, { data: result, reset }] = useTestPublishBridgeConnectionMutation({
    fixedCacheKey: 'publish-bridge-test',
  });
  if (!result) return null;

  return (
    <Flex direction="column" alignItems="stretch" gap={4}>
      <Alert
        variant={result.ok ? 'success' : 'danger'}
        title={formatMessage(
          result.ok
            ? { id: getTranslation('test.success'), defaultMessage: 'Connection works.' }
            : { id: getTranslation('test.failure'), defaultMessage: 'Connection failed.' }
        )}
        closeLabel={formatMessage({ id: 'global.close', defaultMessage: 'Close' })}
        onClose={reset}
      >
        {result.message}
      </Alert>
      <ResultFacts result={result} />
    </Flex>
  );
};

const ResultFacts = ({ result }: { result: ConnectionTestResult }) => {
  const { formatMessage } = useIntl();
  const { handshake } = result;
  const facts = [
    result.url !== undefined
      ? [formatMessage({ id: getTranslation('test.url'), defaultMessage: 'Sent to' }), `POST ${result.url}`]
      : undefined,
    result.status !== undefined
      ? [
          formatMessage({ id: getTranslation('test.status'), defaultMessage: 'HTTP status' }),
          String(result.status),
        ]
      : undefined,
    result.durationMs !== undefined
      ? [
          formatMessage({ id: getTranslation('test.duration'), defaultMessage: 'Round trip' }),
          `${result.durationMs} ms`,
        ]
      : undefined,
    handshake
      ? [
          formatMessage({ id: getTranslation('test.site'), defaultMessage: 'Site' }),
          `${handshake.site.name} (contract ${handshake.contract}, version ${handshake.version})`,
        ]
      : undefined,
    handshake
      ? [
          formatMessage({ id: getTranslation('test.capabilities'), defaultMessage: 'Declared capabilities' }),
          handshake.capabilities.join(', ') ||
            formatMessage({ id: getTranslation('test.capabilities.none'), defaultMessage: 'none' }),
        ]
      : undefined,
  ].filter((fact): fact is string[] => Boolean(fact));

  return (
    <Flex gap={6} wrap="wrap">
      {facts.map(([label, value]) => (
        <Box key={label}>
          <Typography variant="sigma" textColor="neutral600" tag="p">
            {label}
          </Typography>
          <Typography variant="omega">{value}</Typography>
        </Box>
      ))}
    </Flex>
  );
};
