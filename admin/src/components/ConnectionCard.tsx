import {
  Badge,
  Field,
  Flex,
  Grid,
  SingleSelect,
  SingleSelectOption,
  TextInput,
  Typography,
} from '@strapi/design-system';
import { Duplicate } from '@strapi/icons';
import { useClipboard, useNotification } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import type { SettingsForm } from '../hooks/useSettingsForm';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { AddressField } from './AddressField';
import { Card, CardAlert } from './Card';
import { SecretKeyField } from './SecretKeyField';

const GRACE_PERIODS = [
  { minutes: 0, id: 'connection.grace.none', defaultMessage: 'None: refuse the previous key at once' },
  { minutes: 15, id: 'connection.grace.15m', defaultMessage: '15 minutes' },
  { minutes: 60, id: 'connection.grace.1h', defaultMessage: '1 hour' },
  { minutes: 24 * 60, id: 'connection.grace.24h', defaultMessage: '24 hours' },
  { minutes: 7 * 24 * 60, id: 'connection.grace.7d', defaultMessage: '7 days' },
];

type Props = { settings: Settings; form: SettingsForm; canUpdate: boolean };

/** Where the base URL comes from, in the hint under it; only a configured one is used by Test connection. */
const BASE_URL_HINTS = {
  settings: {
    id: 'connection.baseUrl.hint.settings',
    defaultMessage: 'The address the publisher sends posts to, from the public URL saved below.',
  },
  'server.url': {
    id: 'connection.baseUrl.hint.serverUrl',
    defaultMessage: 'The address the publisher sends posts to, from Strapi’s public URL (server.url).',
  },
  request: {
    id: 'connection.baseUrl.hint.request',
    defaultMessage:
      'Not confirmed: this is only the address you opened this page at. Set the public URL below (or Strapi’s server.url) so the base URL is certain; Test connection sends nothing until one is set.',
  },
} as const;

// Over 50 lines: a card's JSX and its translated text; it only chooses what to show.
export const ConnectionCard = ({ settings, form, canUpdate }: Props) => {
  const { formatMessage } = useIntl();
  const formatDateTime = useFormatDateTime();
  const { connectionKey, encryptionAvailable } = settings;

  const keyHint = connectionKey.managedByEnvironment
    ? formatMessage({
        id: getTranslation('connection.key.environment'),
        defaultMessage:
          'Set by the PUBLISH_BRIDGE_API_KEY environment variable, so it is read-only here. Change the variable and restart Strapi to rotate it.',
      })
    : formatMessage(
        {
          id: getTranslation('connection.key.hint'),
          defaultMessage:
            'The key from the publisher (Integration > Custom website). Stored encrypted with Strapi’s encryption key; only its last 4 characters are ever shown.{setAt}',
        },
        {
          setAt: connectionKey.setAt
            ? ` ${formatMessage(
                { id: getTranslation('connection.key.setAt'), defaultMessage: 'Saved {date}.' },
                { date: formatDateTime(connectionKey.setAt) }
              )}`
            : '',
        }
      );

  return (
    <Card
      title={formatMessage({ id: getTranslation('connection.title'), defaultMessage: 'Connection' })}
      subtitle={formatMessage({
        id: getTranslation('connection.subtitle'),
        defaultMessage: 'Register the base URL in the publisher, then paste the connection key it gives you.',
      })}
    >
      {!encryptionAvailable && !connectionKey.managedByEnvironment ? (
        <CardAlert
          variant="danger"
          title={formatMessage({
            id: getTranslation('connection.encryption.title'),
            defaultMessage: 'Keys cannot be saved.',
          })}
        >
          {formatMessage({
            id: getTranslation('connection.encryption.body'),
            defaultMessage:
              'Strapi has no encryption key (admin.secrets.encryptionKey, usually ENCRYPTION_KEY in .env). The plugin refuses to store keys in plain text: set it and restart Strapi, or set PUBLISH_BRIDGE_API_KEY.',
          })}
        </CardAlert>
      ) : null}
      <Grid.Root gap={6}>
        <Grid.Item col={12} direction="column" alignItems="stretch">
          <BaseUrlField settings={settings} />
        </Grid.Item>
        <Grid.Item col={12} direction="column" alignItems="stretch">
          <PublicUrlField form={form} canUpdate={canUpdate} />
        </Grid.Item>
        <Grid.Item col={8} s={12} direction="column" alignItems="stretch">
          <SecretKeyField
            {...form.field('connectionKey')}
            label={formatMessage({ id: getTranslation('connection.key'), defaultMessage: 'Connection key' })}
            hint={keyHint}
            value={connectionKey.managedByEnvironment ? '' : form.values.connectionKey}
            storedLast4={connectionKey.configured ? connectionKey.last4 : undefined}
            emptyPlaceholder={formatMessage({
              id: getTranslation('connection.key.placeholder.empty'),
              defaultMessage: 'Paste the connection key from the publisher',
            })}
            disabled={!canUpdate || connectionKey.managedByEnvironment || !encryptionAvailable}
          />
        </Grid.Item>
        <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
          <Field.Root
            name="graceMinutes"
            hint={formatMessage({
              id: getTranslation('connection.grace.hint'),
              defaultMessage:
                'When you replace a key, deliveries already signed with the old one still get through.',
            })}
          >
            <Field.Label>
              {formatMessage({
                id: getTranslation('connection.grace'),
                defaultMessage: 'Keep accepting the previous key',
              })}
            </Field.Label>
            <SingleSelect
              value={form.values.graceMinutes}
              onChange={(value: string | number) => form.setValue('graceMinutes', String(value))}
              disabled={!canUpdate || !connectionKey.configured || connectionKey.managedByEnvironment}
            >
              {GRACE_PERIODS.map(({ minutes, id, defaultMessage }) => (
                <SingleSelectOption key={minutes} value={String(minutes)}>
                  {formatMessage({ id: getTranslation(id), defaultMessage })}
                </SingleSelectOption>
              ))}
            </SingleSelect>
            <Field.Hint />
          </Field.Root>
        </Grid.Item>
      </Grid.Root>
      {connectionKey.previousKeyAcceptedUntil ? (
        <Flex>
          <Typography variant="pi" textColor="neutral600">
            {formatMessage(
              {
                id: getTranslation('connection.grace.active'),
                defaultMessage: 'The previous key is still accepted until {date}.',
              },
              { date: formatDateTime(connectionKey.previousKeyAcceptedUntil) }
            )}
          </Typography>
        </Flex>
      ) : null}
    </Card>
  );
};

/** The base URL to register, marked "Not confirmed" when it is only the address this page was opened at. */
// Over 50 lines: the field's JSX and its translated text, with the copy button.
const BaseUrlField = ({ settings }: { settings: Settings }) => {
  const { formatMessage } = useIntl();
  const { toggleNotification } = useNotification();
  const { copy } = useClipboard();
  const copyBaseUrl = async () => {
    if (await copy(settings.baseUrl)) {
      toggleNotification({
        type: 'success',
        message: formatMessage({
          id: getTranslation('connection.baseUrl.copied'),
          defaultMessage: 'Base URL copied',
        }),
      });
    }
  };

  return (
    <Field.Root
      name="baseUrl"
      hint={formatMessage({
        ...BASE_URL_HINTS[settings.baseUrlSource],
        id: getTranslation(BASE_URL_HINTS[settings.baseUrlSource].id),
      })}
    >
      <Flex gap={2}>
        <Field.Label>
          {formatMessage({ id: getTranslation('connection.baseUrl'), defaultMessage: 'Base URL' })}
        </Field.Label>
        {settings.baseUrlSource === 'request' ? (
          <Badge variant="warning">
            {formatMessage({
              id: getTranslation('connection.baseUrl.unconfirmed'),
              defaultMessage: 'Not confirmed',
            })}
          </Badge>
        ) : null}
      </Flex>
      <TextInput
        value={settings.baseUrl}
        readOnly
        endAction={
          <Field.Action
            label={formatMessage({
              id: getTranslation('connection.baseUrl.copy'),
              defaultMessage: 'Copy base URL',
            })}
            onClick={copyBaseUrl}
          >
            <Duplicate />
          </Field.Action>
        }
      />
      <Field.Hint />
    </Field.Root>
  );
};

/** This Strapi's public address, saved with the settings; Test connection goes only there (or to server.url). */
const PublicUrlField = ({ form, canUpdate }: { form: SettingsForm; canUpdate: boolean }) => {
  const { formatMessage } = useIntl();
  return (
    <AddressField
      {...form.field('publicUrl')}
      label={formatMessage({ id: getTranslation('connection.publicUrl'), defaultMessage: 'Public URL' })}
      hint={formatMessage({
        id: getTranslation('connection.publicUrl.hint'),
        defaultMessage:
          'The address the publisher reaches this Strapi at, without the plugin’s path, e.g. https://cms.example.com. Takes precedence over server.url; leave empty to use server.url. Test connection sends the connection key only to this address or server.url, never to the address this page was opened at.',
      })}
      placeholder="https://cms.example.com"
      disabled={!canUpdate}
    />
  );
};
