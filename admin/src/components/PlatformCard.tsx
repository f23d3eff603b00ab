import { Field, Grid, TextInput } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { Problem, SettingsForm } from '../hooks/useSettingsForm';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { Card } from './Card';
import { SecretKeyField } from './SecretKeyField';

type Props = { settings: Settings; form: SettingsForm; canUpdate: boolean };

export const PlatformCard = ({ settings, form, canUpdate }: Props) => {
  const { formatMessage } = useIntl();
  const { errors } = form;
  const storedKey = settings.platform.key;
  const errorText = (problem?: Problem) =>
    problem ? formatMessage({ ...problem, id: getTranslation(problem.id) }) : undefined;

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
          <Field.Root
            name="platformUrl"
            error={errorText(errors.platformUrl)}
            hint={formatMessage(
              {
                id: getTranslation('platform.url.hint'),
                defaultMessage: 'The platform’s address; Strapi calls {path} on it.',
              },
              { path: '/back/integrations/platform/logs' }
            )}
          >
            <Field.Label>
              {formatMessage({ id: getTranslation('platform.url'), defaultMessage: 'Platform URL' })}
            </Field.Label>
            <TextInput
              type="url"
              placeholder="https://platform.example.com"
              value={form.values.platformUrl}
              disabled={!canUpdate}
              onChange={(event: React.ChangeEvent<HTMLInputElement>) =>
                form.setValue('platformUrl', event.target.value)
              }
            />
            <Field.Hint />
            <Field.Error />
          </Field.Root>
        </Grid.Item>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <SecretKeyField
            name="platformKey"
            label={formatMessage({ id: getTranslation('platform.key'), defaultMessage: 'Log key' })}
            hint={formatMessage({
              id: getTranslation('platform.key.hint'),
              defaultMessage:
                'The key the platform’s log endpoint accepts (sent as x-api-key). Stored encrypted.',
            })}
            error={errorText(errors.platformKey)}
            value={form.values.platformKey}
            storedLast4={storedKey?.last4}
            emptyPlaceholder={formatMessage({
              id: getTranslation('platform.key.placeholder'),
              defaultMessage: 'Paste the platform’s log key',
            })}
            disabled={!canUpdate || !settings.encryptionAvailable}
            onChange={(value) => form.setValue('platformKey', value)}
          />
        </Grid.Item>
      </Grid.Root>
    </Card>
  );
};
