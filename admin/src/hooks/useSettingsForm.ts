import * as React from 'react';
import type { EditorChangePolicy, Settings, SettingsUpdate } from '../types';

export type FormValues = {
  connectionKey: string;
  graceMinutes: string;
  capabilities: Record<string, boolean>;
  publicUrl: string;
  platformUrl: string;
  platformKey: string;
  editorChanges: EditorChangePolicy;
};

/** A message for the field, as a translation id (without the plugin prefix) and its English text. */
export type Problem = { id: string; defaultMessage: string };
export type FormErrors = Partial<
  Record<'connectionKey' | 'publicUrl' | 'platformUrl' | 'platformKey', Problem>
>;

/** The server's rules (admin-settings controller), checked here so the admin sees them before saving. */
const MIN_KEY_LENGTH = 16;

const PROBLEMS = {
  keySpaces: {
    id: 'form.error.key.spaces',
    defaultMessage: 'A key has no spaces or line breaks: paste it again.',
  },
  keyShort: {
    id: 'form.error.key.short',
    defaultMessage: 'This key looks too short: paste the whole key (at least 16 characters).',
  },
  url: {
    id: 'form.error.url',
    defaultMessage: 'Enter an http(s) address, e.g. https://platform.example.com',
  },
  urlParts: {
    id: 'form.error.url.parts',
    defaultMessage: 'Leave out any user name, password, query (?…) or fragment (#…).',
  },
};

/** An absolute http(s) address without credentials, query or fragment; empty is fine (it clears the setting). */
function addressProblem(value: string): Problem | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return PROBLEMS.url;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return PROBLEMS.url;
  if (url.username || url.password || /[?#]/.test(text)) return PROBLEMS.urlParts;
  return undefined;
}

const keyProblem = (value: string) => {
  const key = value.trim();
  if (key === '') return undefined;
  if (/\s/.test(key)) return PROBLEMS.keySpaces;
  if (key.length < MIN_KEY_LENGTH) return PROBLEMS.keyShort;
  return undefined;
};

function validate(values: FormValues): FormErrors {
  const errors: FormErrors = {
    connectionKey: keyProblem(values.connectionKey),
    platformKey: keyProblem(values.platformKey),
    publicUrl: addressProblem(values.publicUrl),
    platformUrl: addressProblem(values.platformUrl),
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
  const publicUrl = values.publicUrl.trim();
  if (publicUrl !== initial.publicUrl) update.publicUrl = publicUrl;
  if (values.editorChanges !== initial.editorChanges) update.editorChanges = values.editorChanges;
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

const originOf = (url: string) => {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return undefined;
  }
};

/**
 * Whether saving would drop the stored platform log key: the server keeps it only for the
 * origin it was saved with, unless the same save brings a new key.
 */
function dropsPlatformKey(values: FormValues, initial: FormValues, settings: Settings): boolean {
  if (!settings.platform.key || values.platformKey.trim() !== '') return false;
  return (
    values.platformUrl.trim() !== initial.platformUrl &&
    originOf(values.platformUrl) !== originOf(initial.platformUrl)
  );
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
      publicUrl: settings.publicUrl ?? '',
      platformUrl: settings.platform.url ?? '',
      platformKey: '',
      editorChanges: settings.editorChanges,
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
    dropsPlatformKey: dropsPlatformKey(values, initial, settings),
    setValue: <K extends Exclude<keyof FormValues, 'capabilities'>>(name: K, value: FormValues[K]) =>
      setEdits((previous) => ({ ...previous, [name]: value })),
    setCapability: (name: string, enabled: boolean) =>
      setEdits((previous) => ({ ...previous, capabilities: { ...previous.capabilities, [name]: enabled } })),
    reset: () => setEdits({}),
  };
}

export type SettingsForm = ReturnType<typeof useSettingsForm>;
