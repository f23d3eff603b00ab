import { Button, Dialog, Flex, Typography } from '@strapi/design-system';
import { useNotification } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useApiErrorText } from '../hooks/useApiErrorText';
import { useRestorePublishBridgeRevisionMutation } from '../services/api';
import type { RevisionItem } from '../types';
import { getTranslation } from '../utils/getTranslation';

/** The attributes a revision writes, as the Content Manager names them. */
const attributesOf = (revision: RevisionItem) =>
  Object.values(revision.fields).flatMap((values) => Object.keys(values));

/**
 * A revision's Restore button: a restore overwrites the entry's draft, so it first asks, in a
 * dialog naming the fields it will write, and afterwards says which relations it left out.
 */
// Over 50 lines: the dialog's JSX with its translated text; the restore is one short handler.
export const RestoreRevision = ({
  model,
  documentId,
  revision,
}: {
  model: string;
  documentId: string;
  revision: RevisionItem;
}) => {
  const { formatMessage } = useIntl();
  const { toggleNotification } = useNotification();
  const errorText = useApiErrorText();
  const [restore, { isLoading: restoring }] = useRestorePublishBridgeRevisionMutation();
  const text = (id: string, defaultMessage: string, values?: Record<string, string>) =>
    formatMessage({ id: getTranslation(id), defaultMessage }, values);

  const onConfirm = async () => {
    const result = await restore({ id: revision.id, model, documentId });
    if ('error' in result) {
      toggleNotification({ type: 'danger', message: errorText(result.error) });
      return;
    }
    const restored = text('panel.restored', 'Restored into the draft. Publish it to make it live.');
    const { leftOut } = result.data;
    toggleNotification(
      leftOut.length === 0
        ? { type: 'success', message: restored }
        : {
            type: 'warning',
            message: `${restored} ${text(
              'panel.leftOut',
              'Left out, as what they pointed at was deleted: {fields}.',
              {
                fields: leftOut.map(({ field, reason }) => `${field} (${reason})`).join(', '),
              }
            )}`,
          }
    );
  };

  return (
    <Dialog.Root>
      <Dialog.Trigger>
        <Button size="S" variant="tertiary" loading={restoring}>
          {text('panel.restore', 'Restore')}
        </Button>
      </Dialog.Trigger>
      <Dialog.Content>
        <Dialog.Header>{text('panel.restore.title', 'Restore this revision?')}</Dialog.Header>
        <Dialog.Body>
          <Flex direction="column" alignItems="stretch" gap={2}>
            <Typography>
              {text(
                'panel.restore.writes',
                'It writes these fields into the entry’s draft, replacing what they hold now: {fields}.',
                { fields: attributesOf(revision).join(', ') }
              )}
            </Typography>
            <Typography>
              {text(
                'panel.restore.after',
                'Nothing is published: publish the draft to make it live. A relation to an entry deleted since is left out.'
              )}
            </Typography>
          </Flex>
        </Dialog.Body>
        <Dialog.Footer>
          <Dialog.Cancel>
            <Button fullWidth variant="tertiary">
              {text('panel.restore.cancel', 'Cancel')}
            </Button>
          </Dialog.Cancel>
          <Dialog.Action>
            <Button fullWidth variant="default" onClick={onConfirm}>
              {text('panel.restore.confirm', 'Restore into the draft')}
            </Button>
          </Dialog.Action>
        </Dialog.Footer>
      </Dialog.Content>
    </Dialog.Root>
  );
};
