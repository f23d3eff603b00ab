import { Grid, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { SettingsForm } from '../hooks/useSettingsForm';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { AddressField } from './AddressField';
import { Card } from './Card';
import { SecretKeyField } from './SecretKeyField';

type Props = { settings: Settings; form: SettingsForm; canUpdate: boolean };

// Over 50 lines: a card's JSX and its translated text; it only chooses what to show.
export const PlatformCard = ({ settings, form, canUpdate }: Props) => {
  const { formatMessage } = useIntl();
  const storedKey = settings.platform.key;

  return (
    <Card
      title={formatMessage({ id: getTranslation('platform.title'), defaultMessage: 'Platform delivery log' })}
      subtitle={formatMessage({
        id: getTranslation('platform.subtitle'),
        defaultMessage:
          'Optional. Strapi reads the publisher’s own log of what it sent here, so you can compare both sides in the Delivery log tab.',
      })}
    >
      <Grid.Root gap={6}>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <AddressField
            {...form.field('platformUrl')}
            label={formatMessage({ id: getTranslation('platform.url'), defaultMessage: 'Platform URL' })}
            hint={formatMessage(
              {
                id: getTranslation('platform.url.hint'),
                defaultMessage:
                  'The platform’s address; Strapi calls {path} on it. Addresses on a private network need platform.allowedHosts in the plugin config.',
              },
              { path: '/back/integrations/platform/logs' }
            )}
            placeholder="https://platform.example.com"
            disabled={!canUpdate}
          />
        </Grid.Item>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <SecretKeyField
            {...form.field('platformKey')}
            label={formatMessage({ id: getTranslation('platform.key'), defaultMessage: 'Log key' })}
            hint={formatMessage({
              id: getTranslation('platform.key.hint'),
              defaultMessage:
                'The key the platform’s log endpoint accepts (sent as x-api-key). Stored encrypted, and removed when the platform URL moves to another address.',
            })}
            storedLast4={storedKey?.last4}
            emptyPlaceholder={formatMessage({
              id: getTranslation('platform.key.placeholder'),
              defaultMessage: 'Paste the platform’s log key',
            })}
            disabled={!canUpdate || !settings.encryptionAvailable}
          />
        </Grid.Item>
        {form.dropsPlatformKey ? (
          <Grid.Item col={12} direction="column" alignItems="stretch">
            <Typography variant="pi" textColor="danger600">
              {formatMessage({
                id: getTranslation('platform.key.dropped'),
                defaultMessage:
                  'The stored log key is only sent to the address it was saved for: saving this URL removes it. Paste the log key again to keep reading the delivery log.',
              })}
            </Typography>
          </Grid.Item>
        ) : null}
      </Grid.Root>
    </Card>
  );
};
