import * as React from 'react';
import type { Settings, SettingsUpdate } from '../types';

export type FormValues = {
  connectionKey: string;
  graceMinutes: string;
  capabilities: Record<string, boolean>;
  platformUrl: string;
  platformKey: string;
};

/** A message for the field, as a translation id (without the plugin prefix) and its English text. */
export type Problem = { id: string; defaultMessage: string };
export type FormErrors = Partial<Record<'connectionKey' | 'platformUrl' | 'platformKey', Problem>>;

const PROBLEMS = {
  keySpaces: {
    id: 'form.error.key.spaces',
    defaultMessage: 'A key has no spaces or line breaks: paste it again.',
  },
  keyShort: {
    id: 'form.error.key.short',
    defaultMessage: 'This key looks too short: paste the whole key (at least 8 characters).',
  },
  url: {
    id: 'form.error.url',
    defaultMessage: 'Enter an http(s) address, e.g. https://platform.example.com',
  },
};

const keyProblem = (value: string) => {
  const key = value.trim();
  if (key === '') return undefined;
  if (/\s/.test(key)) return PROBLEMS.keySpaces;
  if (key.length < 8) return PROBLEMS.keyShort;
  return undefined;
};

function validate(values: FormValues): FormErrors {
  const url = values.platformUrl.trim();
  const errors: FormErrors = {
    connectionKey: keyProblem(values.connectionKey),
    platformKey: keyProblem(values.platformKey),
    platformUrl: url === '' || /^https?:\/\/[^\s/]+\S*$/i.test(url) ? undefined : PROBLEMS.url,
  };
  return Object.fromEntries(Object.entries(errors).filter(([, error]) => error)) as FormErrors;
}

/** Only what the admin changed: an untouched key field keeps the stored key. */
function changesFrom(values: FormValues, initial: FormValues): SettingsUpdate | null {
  const update: SettingsUpdate = {};
  const key = values.connectionKey.trim();
  if (key) update.connectionKey = { value: key, graceMinutes: Number(values.graceMinutes) };
  const capabilities = Object.fromEntries(
    Object.entries(values.capabilities).filter(([name, enabled]) => initial.capabilities[name] !== enabled)
  );
  if (Object.keys(capabilities).length > 0) update.capabilities = capabilities;
  const platformUrl = values.platformUrl.trim();
  const platformKey = values.platformKey.trim();
  if (platformUrl !== initial.platformUrl || platformKey) {
    update.platform = {
      ...(platformUrl !== initial.platformUrl ? { url: platformUrl } : {}),
      ...(platformKey ? { key: platformKey } : {}),
    };
  }
  return Object.keys(update).length > 0 ? update : null;
}

/**
 * The connection form's state as edits over the saved settings, so a refetch (after a test,
 * say) never wipes what the admin is typing.
 */
export function useSettingsForm(settings: Settings) {
  const initial = React.useMemo<FormValues>(
    () => ({
      connectionKey: '',
      graceMinutes: '0',
      capabilities: Object.fromEntries(settings.capabilities.map(({ name, enabled }) => [name, enabled])),
      platformUrl: settings.platform.url ?? '',
      platformKey: '',
    }),
    [settings]
  );
  const [edits, setEdits] = React.useState<Partial<FormValues>>({});
  const values: FormValues = {
    ...initial,
    ...edits,
    capabilities: { ...initial.capabilities, ...edits.capabilities },
  };

  return {
    values,
    errors: validate(values),
    changes: changesFrom(values, initial),
    setValue: <K extends Exclude<keyof FormValues, 'capabilities'>>(name: K, value: FormValues[K]) =>
      setEdits((previous) => ({ ...previous, [name]: value })),
    setCapability: (name: string, enabled: boolean) =>
      setEdits((previous) => ({ ...previous, capabilities: { ...previous.capabilities, [name]: enabled } })),
    reset: () => setEdits({}),
  };
}

export type SettingsForm = ReturnType<typeof useSettingsForm>;
