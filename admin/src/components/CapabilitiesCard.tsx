import { Field, Grid, Toggle } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { SettingsForm } from '../hooks/useSettingsForm';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { Card } from './Card';

type Props = { settings: Settings; form: SettingsForm; canUpdate: boolean };

/**
 * A capability's label and description are in translations/en.json only, keyed by its name
 * (`capabilities.<name>.label`, `.description`); a capability without them shows its name.
 */
// Over 50 lines: a card's JSX and its translated text; it only chooses what to show.
export const CapabilitiesCard = ({ settings, form, canUpdate }: Props) => {
  const { formatMessage } = useIntl();
  const onLabel = formatMessage({
    id: 'app.components.ToggleCheckbox.enabled-label',
    defaultMessage: 'Enabled',
  });
  const offLabel = formatMessage({
    id: 'app.components.ToggleCheckbox.disabled-label',
    defaultMessage: 'Disabled',
  });

  return (
    <Card
      title={formatMessage({ id: getTranslation('capabilities.title'), defaultMessage: 'Capabilities' })}
      subtitle={formatMessage({
        id: getTranslation('capabilities.subtitle'),
        defaultMessage:
          'What this site declares in its handshake. The publisher only calls what is on; a change applies to the next handshake, on every Strapi instance, without a restart.',
      })}
    >
      <Grid.Root gap={6}>
        {settings.capabilities.map(({ name, available, unavailableReason }) => (
          <Grid.Item key={name} col={6} s={12} direction="column" alignItems="stretch">
            <Field.Root
              name={`capabilities.${name}`}
              hint={[
                `${formatMessage({
                  id: getTranslation(`capabilities.${name}.description`),
                  defaultMessage: name,
                })} (${name})`,
                // The server's reason names the site's own mapping: it is not translated.
                available ? '' : unavailableReason,
              ]
                .filter(Boolean)
                .join(' ')}
            >
              <Field.Label>
                {formatMessage({
                  id: getTranslation(`capabilities.${name}.label`),
                  defaultMessage: name,
                })}
              </Field.Label>
              <Toggle
                checked={available && form.values.capabilities[name]}
                onLabel={onLabel}
                offLabel={offLabel}
                disabled={!canUpdate || !available}
                onChange={(event: React.ChangeEvent<HTMLInputElement>) =>
                  form.setCapability(name, event.target.checked)
                }
              />
              <Field.Hint />
            </Field.Root>
          </Grid.Item>
        ))}
      </Grid.Root>
    </Card>
  );
};
