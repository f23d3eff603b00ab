import { Button, Dialog, Flex, Typography } from '@strapi/design-system';
import { useNotification } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { useApiErrorText } from '../hooks/useApiErrorText';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import { useCancelPublishBridgeScheduleMutation } from '../services/api';
import type { RevisionsQuery } from '../types';
import { getTranslation } from '../utils/getTranslation';

/** When the entry's waiting publish happens, with a Cancel button for an admin who may publish the entry. */
export const ScheduledPublish = ({
  at,
  entry,
  mayCancel,
}: {
  at: string;
  entry: RevisionsQuery;
  mayCancel: boolean;
}) => {
  const formatDateTime = useFormatDateTime();
  return (
    <Flex justifyContent="space-between" gap={2} width="100%">
      <Typography variant="pi">{formatDateTime(at)}</Typography>
      {mayCancel ? <CancelSchedule entry={entry} /> : null}
    </Flex>
  );
};

/** The waiting publish's Cancel button, confirmed in a dialog; the panel is read again afterwards. */
// Over 50 lines: the dialog's JSX with its translated text; the cancel is one short handler.
const CancelSchedule = ({ entry }: { entry: RevisionsQuery }) => {
  const { formatMessage } = useIntl();
  const { toggleNotification } = useNotification();
  const errorText = useApiErrorText();
  const [cancelSchedule, { isLoading }] = useCancelPublishBridgeScheduleMutation();
  const text = (id: string, defaultMessage: string) =>
    formatMessage({ id: getTranslation(id), defaultMessage });

  const onConfirm = async () => {
    const result = await cancelSchedule(entry);
    toggleNotification(
      'error' in result
        ? { type: 'danger', message: errorText(result.error) }
        : {
            type: 'success',
            message: text(
              'panel.scheduleCancelled',
              'Scheduled publish cancelled: the entry will not be published at that time.'
            ),
          }
    );
  };

  return (
    <Dialog.Root>
      <Dialog.Trigger>
        <Button size="S" variant="danger-light" loading={isLoading}>
          {text('panel.cancelSchedule', 'Cancel')}
        </Button>
      </Dialog.Trigger>
      <Dialog.Content>
        <Dialog.Header>{text('panel.cancelSchedule.title', 'Cancel the scheduled publish?')}</Dialog.Header>
        <Dialog.Body>
          {text(
            'panel.cancelSchedule.body',
            'The entry will not be published at its scheduled time. It stays as it is until someone publishes it or the platform sends it again.'
          )}
        </Dialog.Body>
        <Dialog.Footer>
          <Dialog.Cancel>
            <Button variant="tertiary">{text('panel.cancelSchedule.keep', 'Keep the schedule')}</Button>
          </Dialog.Cancel>
          <Dialog.Action>
            <Button variant="danger" onClick={onConfirm}>
              {text('panel.cancelSchedule.confirm', 'Cancel the publish')}
            </Button>
          </Dialog.Action>
        </Dialog.Footer>
      </Dialog.Content>
    </Dialog.Root>
  );
};
