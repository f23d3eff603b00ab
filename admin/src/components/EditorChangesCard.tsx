import { Field, SingleSelect, SingleSelectOption } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { EDITOR_CHANGE_POLICIES, type EditorChangePolicy } from '#contract/editor-change-policies';
import type { SettingsForm } from '../hooks/useSettingsForm';
import { getTranslation } from '../utils/getTranslation';
import { Card } from './Card';

const POLICY_LABELS: Record<EditorChangePolicy, string> = {
  overwrite: "Apply the platform's update",
  keep: "Keep the editor's changes, update the other fields",
  draft: 'Put the update in the draft for review',
};

const POLICY_HINTS: Record<EditorChangePolicy, string> = {
  overwrite: "The fields an editor changed get the platform's values; the activity log says which.",
  keep: 'The fields an editor changed stay as the editor left them; the activity log says which.',
  draft:
    'The whole update goes to the draft and nothing is published: the published version stays as the editor left it, and the entry shows as Modified until someone reviews and publishes it.',
};

type Props = { form: SettingsForm; canUpdate: boolean };

/** "When an editor changed a post in Strapi": the site's policy for updates that meet editors' changes. */
export const EditorChangesCard = ({ form, canUpdate }: Props) => {
  const { formatMessage } = useIntl();
  const text = (id: string, defaultMessage: string) =>
    formatMessage({ id: getTranslation(id), defaultMessage });
  const policy = form.values.editorChanges;

  return (
    <Card
      title={text('editorChanges.title', 'When an editor changed a post in Strapi')}
      subtitle={text(
        'editorChanges.subtitle',
        'What an update from the platform does to the fields it carries that an editor changed since the platform last sent them. Fields the platform does not send are never touched.'
      )}
    >
      <Field.Root name="editorChanges" hint={text(`editorChanges.${policy}.hint`, POLICY_HINTS[policy])}>
        <Field.Label>{text('editorChanges.label', 'Policy')}</Field.Label>
        <SingleSelect
          value={policy}
          onChange={(value: string | number) => form.setValue('editorChanges', value as EditorChangePolicy)}
          disabled={!canUpdate}
        >
          {EDITOR_CHANGE_POLICIES.map((name) => (
            <SingleSelectOption key={name} value={name}>
              {text(`editorChanges.${name}`, POLICY_LABELS[name])}
            </SingleSelectOption>
          ))}
        </SingleSelect>
        <Field.Hint />
      </Field.Root>
    </Card>
  );
};
