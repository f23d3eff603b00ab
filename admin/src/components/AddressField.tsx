import { Field, TextInput } from '@strapi/design-system';
import type { TextFieldProps } from './SecretKeyField';

type Props = TextFieldProps & { placeholder: string };

/** An http(s) address the server will send a key to; the form checks it with the server's schema. */
export const AddressField = ({ name, label, hint, error, value, placeholder, disabled, onChange }: Props) => (
  <Field.Root name={name} hint={hint} error={error && `${label} ${error}`}>
    <Field.Label>{label}</Field.Label>
    <TextInput
      type="url"
      placeholder={placeholder}
      value={value}
      disabled={disabled}
      onChange={(event: React.ChangeEvent<HTMLInputElement>) => onChange(event.target.value)}
    />
    <Field.Hint />
    <Field.Error />
  </Field.Root>
);
