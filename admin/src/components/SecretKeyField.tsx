import { Field, TextInput } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { getTranslation } from '../utils/getTranslation';

/** What every text field of the settings form takes. */
export type TextFieldProps = {
  name: string;
  label: string;
  hint: string;
  /** The schema's message, which reads after the field's name ("is too short: …"). */
  error?: string;
  value: string;
  disabled: boolean;
  onChange(value: string): void;
};

type Props = TextFieldProps & {
  /** The last 4 characters of the stored key, when one is stored: the only part ever shown. */
  storedLast4?: string;
  emptyPlaceholder: string;
};

/** A key field that never shows the stored key: it is empty, and a new key typed in replaces the stored one. */
export const SecretKeyField = ({
  name,
  label,
  hint,
  error,
  value,
  storedLast4,
  emptyPlaceholder,
  disabled,
  onChange,
}: Props) => {
  const { formatMessage } = useIntl();
  return (
    <Field.Root name={name} hint={hint} error={error && `${label} ${error}`}>
      <Field.Label>{label}</Field.Label>
      <TextInput
        type="password"
        autoComplete="off"
        value={value}
        placeholder={
          storedLast4 === undefined
            ? emptyPlaceholder
            : formatMessage(
                {
                  id: getTranslation('connection.key.placeholder.replace'),
                  defaultMessage: '•••• {last4}: paste a new key to replace it',
                },
                { last4: storedLast4 }
              )
        }
        disabled={disabled}
        onChange={(event: React.ChangeEvent<HTMLInputElement>) => onChange(event.target.value)}
      />
      <Field.Hint />
      <Field.Error />
    </Field.Root>
  );
};
