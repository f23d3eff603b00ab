import { Badge, Flex, Link, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { NavLink } from 'react-router-dom';
import { useFormatDateTime } from '../hooks/useFormatDateTime';
import { PLUGIN_ID } from '../pluginId';
import { useGetPublishBridgeEntryQuery } from '../services/api';
import type { ManagedEntryPanel, RevisionItem } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { RestoreRevision } from './RestoreRevision';
import { ScheduledPublish } from './ScheduledPublish';

/** What the Content Manager hands an edit view's side panel (its `PanelComponentProps`). */
type PanelProps = {
  model: string;
  collectionType: string;
  documentId?: string;
  document?: { locale?: string | null };
};

type ManagedEntry = Extract<ManagedEntryPanel, { managed: true }>;
type Translate = (id: string, defaultMessage: string) => string;

const Label = ({ children }: { children: React.ReactNode }) => (
  <Typography variant="sigma" textColor="neutral600">
    {children}
  </Typography>
);

/** One labelled piece of the panel. */
const Detail = ({ label, children }: { label: string; children: React.ReactNode }) => (
  <Flex direction="column" alignItems="flex-start" gap={1}>
    <Label>{label}</Label>
    {children}
  </Flex>
);

/**
 * A side panel on the edit view of every entry the plugin manages: where it came from, the
 * last delivery, a waiting publish with a Cancel button (for whoever may publish the entry), what
 * editors changed since, and the revisions with a Restore button. Admins
 * without the logs permission, and entries the plugin did not create, get no panel.
 */
export const EntryPanel = ({ model, collectionType, documentId, document }: PanelProps) => {
  const { formatMessage } = useIntl();
  const text = (id: string, defaultMessage: string) =>
    formatMessage({ id: getTranslation(id), defaultMessage });
  const entry = { uid: model, documentId: documentId ?? '', locale: document?.locale ?? undefined };
  const { data } = useGetPublishBridgeEntryQuery(entry, {
    skip: !documentId || collectionType !== 'collection-types',
  });
  if (!data?.managed || !documentId) return null;

  return {
    title: text('panel.title', 'Publish Bridge'),
    content: (
      <Flex direction="column" alignItems="stretch" gap={3} width="100%">
        <Flex gap={2} wrap="wrap">
          <Badge>{text('panel.fromPlatform', 'From the publishing platform')}</Badge>
        </Flex>
        <Origin entry={data} text={text} />
        <LastDelivery delivery={data.lastDelivery} text={text} />
        {data.scheduledAt ? (
          <Detail label={text('panel.scheduled', 'Publishes at')}>
            <ScheduledPublish at={data.scheduledAt} entry={entry} mayCancel={data.mayCancelSchedule} />
          </Detail>
        ) : null}
        <Detail label={text('panel.changed', 'Edited in Strapi after the platform’s last update')}>
          <Typography variant="pi">
            {data.changedByEditors.length > 0
              ? data.changedByEditors.join(', ')
              : text('panel.unchanged', 'Nothing: the entry holds what the platform sent')}
          </Typography>
        </Detail>
        <Revisions model={model} documentId={documentId} revisions={data.revisions} />
      </Flex>
    ),
  };
};

/**
 * Where the entry came from: its connection on a site with several, its source id and the link the
 * platform was answered, when known.
 */
const Origin = ({ entry, text }: { entry: ManagedEntry; text: Translate }) => (
  <>
    {entry.connection ? (
      <Detail label={text('panel.connection', 'Connection')}>
        <Typography variant="pi">{entry.connection}</Typography>
      </Detail>
    ) : null}
    {entry.sourceId ? (
      <Detail label={text('panel.sourceId', 'Source id')}>
        <Typography variant="pi">{entry.sourceId}</Typography>
      </Detail>
    ) : null}
    {entry.url ? (
      <Detail
        label={
          entry.urlKind === 'preview'
            ? text('panel.previewUrl', 'Preview link (draft)')
            : text('panel.publicUrl', 'Public link')
        }
      >
        <Link href={entry.url} isExternal>
          {entry.url}
        </Link>
      </Detail>
    ) : null}
  </>
);

/** The last delivery about the entry, linking to the activity log where the rest is. */
const LastDelivery = ({ delivery, text }: { delivery: ManagedEntry['lastDelivery']; text: Translate }) => {
  const formatDateTime = useFormatDateTime();
  return (
    <Detail label={text('panel.lastDelivery', 'Last delivery')}>
      {delivery ? (
        <Link tag={NavLink} to={`/settings/${PLUGIN_ID}?tab=activity`}>
          {`${formatDateTime(delivery.receivedAt)} · ${delivery.action} · ${delivery.outcome}`}
        </Link>
      ) : (
        <Typography variant="pi">{text('panel.noDelivery', 'None in the activity log')}</Typography>
      )}
    </Detail>
  );
};

/** The entry's revisions, newest first, each with a Restore button (into the entry's draft). */
const Revisions = ({
  model,
  documentId,
  revisions,
}: {
  model: string;
  documentId: string;
  revisions: RevisionItem[];
}) => {
  const { formatMessage } = useIntl();
  const formatDateTime = useFormatDateTime();
  const text = (id: string, defaultMessage: string) =>
    formatMessage({ id: getTranslation(id), defaultMessage });

  return (
    <Flex direction="column" alignItems="stretch" gap={2}>
      <Label>{text('panel.revisions', 'Revisions')}</Label>
      {revisions.length === 0 ? (
        <Typography variant="pi">{text('panel.noRevisions', 'None kept')}</Typography>
      ) : (
        revisions.map((revision) => (
          <Flex key={revision.id} justifyContent="space-between" gap={2}>
            <Typography variant="pi">
              {`${formatDateTime(revision.createdAt)} · ${
                revision.reason === 'delete'
                  ? text('panel.reason.delete', 'before a delete')
                  : text('panel.reason.update', 'before an update')
              } · ${Object.keys(revision.fields).join(', ')}`}
            </Typography>
            <RestoreRevision model={model} documentId={documentId} revision={revision} />
          </Flex>
        ))
      )}
    </Flex>
  );
};
