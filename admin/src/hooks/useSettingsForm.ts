import * as React from 'react';
import { settingsUpdateSchema } from '#contract/admin/settings';
import { safeParseInPlainWords } from '#contract/errors';
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

/** The fields that can be typed wrong, each with the schema's message ("is too short: …") for it. */
export type FormErrors = Partial<
  Record<'connectionKey' | 'publicUrl' | 'platformUrl' | 'platformKey', string>
>;

/** Where each of those fields goes in the request the server validates. */
const FIELD_PATHS: Record<keyof FormErrors, string> = {
  connectionKey: 'connectionKey.value',
  publicUrl: 'publicUrl',
  platformUrl: 'platform.url',
  platformKey: 'platform.key',
};

/**
 * The server's own schema run on what saving would send, so the admin sees its problems before
 * saving, in the words the server would answer with; a field's first problem only.
 */
function validate(update: SettingsUpdate | null): FormErrors {
  const result = update ? safeParseInPlainWords(settingsUpdateSchema, update) : undefined;
  if (!result || result.success) return {};
  const errors: FormErrors = {};
  for (const [field, path] of Object.entries(FIELD_PATHS) as [keyof FormErrors, string][]) {
    errors[field] = result.error.issues.find((issue) => issue.path.join('.') === path)?.message;
  }
  return Object.fromEntries(Object.entries(errors).filter(([, error]) => error));
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

  const changes = changesFrom(values, initial);
  const errors = validate(changes);
  const setValue = <K extends Exclude<keyof FormValues, 'capabilities'>>(name: K, value: FormValues[K]) =>
    setEdits((previous) => ({ ...previous, [name]: value }));

  return {
    values,
    errors,
    changes,
    dropsPlatformKey: dropsPlatformKey(values, initial, settings),
    /** A text field's value, its problem, and where its changes go. */
    field: (name: keyof FormErrors) => ({
      name,
      value: values[name],
      error: errors[name],
      onChange: (value: string) => setValue(name, value),
    }),
    setValue,
    setCapability: (name: string, enabled: boolean) =>
      setEdits((previous) => ({ ...previous, capabilities: { ...previous.capabilities, [name]: enabled } })),
    reset: () => setEdits({}),
  };
}

export type SettingsForm = ReturnType<typeof useSettingsForm>;
