import { Badge, Flex, Grid, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { needsHttps } from '#contract/addresses';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { Card, CardAlert } from './Card';
import { HttpStatus } from './HttpStatus';
import { TestConnectionButton, TestConnectionResult } from './TestConnection';

const Fact = ({ label, children }: { label: string; children: React.ReactNode }) => (
  <Flex direction="column" alignItems="stretch" gap={1}>
    <Typography variant="sigma" textColor="neutral600" tag="h3">
      {label}
    </Typography>
    {children}
  </Flex>
);

type Props = {
  settings: Settings;
  /** The last request is log data: the server sends it only to admins who may read the logs. */
  canReadLogs: boolean;
};

// Over 50 lines: a card's JSX and its translated text; it only chooses what to show.
export const StatusCard = ({ settings, canReadLogs }: Props) => {
  const { formatMessage } = useIntl();
  const formatDateTime = useFormatDateTime();
  const { connectionKey, status } = settings;
  const lastRequest = status.lastRequest;
  const never = formatMessage({ id: getTranslation('status.never'), defaultMessage: 'Never' });

  return (
    <Card
      title={formatMessage({ id: getTranslation('status.title'), defaultMessage: 'Status' })}
      subtitle={formatMessage({
        id: getTranslation('status.subtitle'),
        defaultMessage:
          'Test connection signs a handshake with the connection key and sends it to the base URL, through any proxy in between.',
      })}
      action={<TestConnectionButton disabled={!connectionKey.configured} />}
    >
      {status.outOfService ? (
        <CardAlert
          variant="danger"
          title={formatMessage({
            id: getTranslation('status.outOfService'),
            defaultMessage: 'The platform cannot publish: its requests are answered 503.',
          })}
        >
          {status.outOfService}
        </CardAlert>
      ) : null}
      <Grid.Root gap={6}>
        <Grid.Item col={3} s={12} direction="column" alignItems="stretch">
          <Fact label={formatMessage({ id: getTranslation('status.key'), defaultMessage: 'Connection key' })}>
            <Flex gap={2}>
              {connectionKey.configured ? (
                <Badge variant="success">
                  {connectionKey.managedByEnvironment
                    ? formatMessage({
                        id: getTranslation('status.key.environment'),
                        defaultMessage: 'From environment',
                      })
                    : formatMessage({ id: getTranslation('status.key.set'), defaultMessage: 'Set' })}
                </Badge>
              ) : (
                <Badge variant="danger">
                  {formatMessage({ id: getTranslation('status.key.missing'), defaultMessage: 'Not set' })}
                </Badge>
              )}
              {connectionKey.configured ? (
                <Typography variant="omega" textColor="neutral600">
                  •••• {connectionKey.last4}
                </Typography>
              ) : null}
            </Flex>
          </Fact>
        </Grid.Item>
        <Grid.Item col={3} s={12} direction="column" alignItems="stretch">
          <Fact
            label={formatMessage({
              id: getTranslation('status.handshake'),
              defaultMessage: 'Last handshake',
            })}
          >
            <Typography variant="omega">
              {status.lastHandshakeAt ? formatDateTime(status.lastHandshakeAt) : never}
            </Typography>
          </Fact>
        </Grid.Item>
        {canReadLogs ? (
          <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
            <Fact
              label={formatMessage({ id: getTranslation('status.request'), defaultMessage: 'Last request' })}
            >
              {lastRequest ? (
                <Flex direction="column" alignItems="stretch" gap={1}>
                  <Flex gap={2}>
                    <HttpStatus status={lastRequest.httpStatus} outcome={lastRequest.outcome} />
                    <Typography variant="omega">
                      {lastRequest.method} {lastRequest.path}
                    </Typography>
                  </Flex>
                  <Typography variant="pi" textColor="neutral600">
                    {formatDateTime(lastRequest.receivedAt)}
                    {lastRequest.reason ? ` · ${lastRequest.reason}` : ''}
                  </Typography>
                </Flex>
              ) : (
                <Typography variant="omega">{never}</Typography>
              )}
            </Fact>
          </Grid.Item>
        ) : null}
      </Grid.Root>
      {needsHttps(settings.baseUrl) ? <HttpsWarning baseUrl={settings.baseUrl} /> : null}
      <TestConnectionResult />
    </Card>
  );
};

/** Beside the test's outcome: a handshake over plain HTTP works here, yet the platform will not send to it. */
const HttpsWarning = ({ baseUrl }: { baseUrl: string }) => {
  const { formatMessage } = useIntl();
  return (
    <CardAlert
      variant="warning"
      title={formatMessage({
        id: getTranslation('status.https.title'),
        defaultMessage: 'The platform requires HTTPS.',
      })}
    >
      {formatMessage(
        {
          id: getTranslation('status.https.body'),
          defaultMessage:
            'The base URL {baseUrl} is plain HTTP, so the platform will not send posts to it. Serve Strapi over HTTPS (a reverse proxy or a tunnel in front of it), then set the Public URL below, or url in config/server, to the https:// address.',
        },
        { baseUrl }
      )}
    </CardAlert>
  );
};
