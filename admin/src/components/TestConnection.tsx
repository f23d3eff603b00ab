import { Alert, Box, Button, Field, Flex, JSONInput, Typography } from '@strapi/design-system';
import { Play } from '@strapi/icons';
import { useAPIErrorHandler, useNotification } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useTestPublishBridgeConnectionMutation } from '../services/api';
import type { ConnectionTestResult } from '../types';
import { getTranslation } from '../utils/getTranslation';

/**
 * "Test connection": the server signs a handshake and sends it to its own configured public base
 * URL. Without one it sends nothing and its message says what to set, so the button stays enabled.
 */
export const TestConnectionButton = ({ disabled }: { disabled?: boolean }) => {
  const { formatMessage } = useIntl();
  const { toggleNotification } = useNotification();
  const { _unstableFormatAPIError: formatAPIError } = useAPIErrorHandler();
  const [testConnection, { isLoading }] = useTestPublishBridgeConnectionMutation({
    fixedCacheKey: 'publish-bridge-test',
  });

  const run = async () => {
    const result = await testConnection();
    if ('error' in result && result.error) {
      toggleNotification({ type: 'danger', message: formatAPIError(result.error as never) });
    }
  };

  return (
    <Button variant="secondary" startIcon={<Play />} loading={isLoading} disabled={disabled} onClick={run}>
      {formatMessage({ id: getTranslation('test.button'), defaultMessage: 'Test connection' })}
    </Button>
  );
};

/** The last test's outcome, with the answer that came back so a proxy's changes are visible. */
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
      {result.response !== undefined ? (
        <Field.Root name="connection-test-response">
          <Field.Label>
            {formatMessage({ id: getTranslation('test.response'), defaultMessage: 'What came back' })}
          </Field.Label>
          <JSONInput
            value={
              typeof result.response === 'string' ? result.response : JSON.stringify(result.response, null, 2)
            }
            disabled
            maxHeight="20rem"
          />
        </Field.Root>
      ) : null}
    </Flex>
  );
};

const ResultFacts = ({ result }: { result: ConnectionTestResult }) => {
  const { formatMessage } = useIntl();
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
