import { Box, Field, SingleSelect, SingleSelectOption } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';

type Props = { settings: Settings; onChange: (connection: string) => void };

/**
 * Which connection (config `connections`) the page shows and changes: each has its own base URL,
 * key, capabilities, platform and status. Shown only on a site with several.
 */
export const ConnectionPicker = ({ settings, onChange }: Props) => {
  const { formatMessage } = useIntl();
  return (
    <Box paddingBottom={6} maxWidth="40rem">
      <Field.Root
        name="connection"
        hint={formatMessage({
          id: getTranslation('connections.hint'),
          defaultMessage:
            'Each connection has its own base URL, key and capabilities; the activity log lists them all.',
        })}
      >
        <Field.Label>
          {formatMessage({ id: getTranslation('connections.label'), defaultMessage: 'Connection' })}
        </Field.Label>
        <SingleSelect
          value={settings.connection}
          onChange={(value: string | number) => onChange(String(value))}
        >
          {settings.connections.map(({ name, baseUrl, locale }) => (
            <SingleSelectOption key={name} value={name}>
              {locale ? `${name} (${locale}): ${baseUrl}` : `${name}: ${baseUrl}`}
            </SingleSelectOption>
          ))}
        </SingleSelect>
        <Field.Hint />
      </Field.Root>
    </Box>
  );
};
