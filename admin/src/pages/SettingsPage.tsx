import * as React from 'react';
import { Button, Flex, Tabs } from '@strapi/design-system';
import { Check } from '@strapi/icons';
import { Layouts, Page, useNotification, useQueryParams, useRBAC } from '@strapi/strapi/admin';
import { useIntl } from 'react-intl';
import { ActivityTab } from '../components/ActivityTab';
import { CapabilitiesCard } from '../components/CapabilitiesCard';
import { EditorChangesCard } from '../components/EditorChangesCard';
import { ConnectionCard } from '../components/ConnectionCard';
import { DeliveryLogTab } from '../components/DeliveryLogTab';
import { PlatformCard } from '../components/PlatformCard';
import { StorageCard } from '../components/StorageCard';
import { StatusCard } from '../components/StatusCard';
import { PERMISSIONS } from '../constants';
import { useApiErrorText } from '../hooks/useApiErrorText';
import { useSelectedConnection } from '../hooks/useSelectedConnection';
import { useSettingsForm } from '../hooks/useSettingsForm';
import { ConnectionPicker } from '../components/ConnectionPicker';
import { useGetPublishBridgeSettingsQuery, useUpdatePublishBridgeSettingsMutation } from '../services/api';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';

const TABS = ['connection', 'activity', 'delivery'] as const;
const FORM_ID = 'publish-bridge-settings';
const STATUS_REFRESH_MS = 15_000;
type Tab = (typeof TABS)[number];

const SettingsPage = () => {
  const { formatMessage } = useIntl();
  const connection = useSelectedConnection();
  // Polled so the status (last handshake, last request) follows the publisher while the page is open.
  const {
    data: settings,
    isLoading,
    isError,
  } = useGetPublishBridgeSettingsQuery(
    { connection },
    {
      pollingInterval: STATUS_REFRESH_MS,
    }
  );
  const { allowedActions: updatePermissions, isLoading: isLoadingUpdate } = useRBAC(PERMISSIONS.update);
  const { allowedActions: logsPermissions, isLoading: isLoadingLogs } = useRBAC(PERMISSIONS.logs);

  if (isLoading || isLoadingUpdate || isLoadingLogs) return <Page.Loading />;
  if (isError || !settings) return <Page.Error />;

  return (
    <Page.Main>
      <Page.Title>
        {formatMessage(
          { id: 'Settings.PageTitle', defaultMessage: 'Settings - {name}' },
          { name: formatMessage({ id: getTranslation('plugin.name'), defaultMessage: 'Publish Bridge' }) }
        )}
      </Page.Title>
      {/* A form per connection: another connection's settings start from a clean form. */}
      <SettingsForm
        key={settings.connection}
        settings={settings}
        canUpdate={Boolean(updatePermissions.canUpdate)}
        canReadLogs={Boolean(logsPermissions.canRead)}
      />
    </Page.Main>
  );
};

type FormProps = { settings: Settings; canUpdate: boolean; canReadLogs: boolean };

// Over 50 lines: the tabs and cards as JSX, and save; the form's rules are in useSettingsForm.
const SettingsForm = ({ settings, canUpdate, canReadLogs }: FormProps) => {
  const { formatMessage } = useIntl();
  const { toggleNotification } = useNotification();
  const apiErrorText = useApiErrorText();
  const [{ query }, setQuery] = useQueryParams<{ tab?: string; connection?: string }>();
  const [updateSettings, { isLoading: isSaving }] = useUpdatePublishBridgeSettingsMutation();
  const form = useSettingsForm(settings);

  const requested = TABS.find((tab) => tab === query.tab) ?? 'connection';
  const tab: Tab = canReadLogs ? requested : 'connection';
  // Each tab pages and filters its own table: switching starts from a clean query, in the same connection.
  const openTab = (next: string) => setQuery({ tab: next, connection: query.connection }, 'push', true);
  const openConnection = (connection: string) => setQuery({ tab, connection }, 'push', true);
  const hasErrors = Object.keys(form.errors).length > 0;

  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!form.changes || hasErrors) return;
    const result = await updateSettings({ connection: settings.connection, changes: form.changes });
    if ('error' in result && result.error) {
      toggleNotification({ type: 'danger', message: apiErrorText(result.error) });
      return;
    }
    form.reset();
    toggleNotification({
      type: 'success',
      message: formatMessage({ id: 'notification.form.success.fields', defaultMessage: 'Changes saved' }),
    });
  };

  return (
    <>
      <Layouts.Header
        title={formatMessage({ id: getTranslation('plugin.name'), defaultMessage: 'Publish Bridge' })}
        subtitle={formatMessage({
          id: getTranslation('page.subtitle'),
          defaultMessage: 'Connect the publishing platform to this site and follow what it sends.',
        })}
        primaryAction={
          tab === 'connection' && canUpdate ? (
            <Button
              type="submit"
              form={FORM_ID}
              startIcon={<Check />}
              disabled={!form.changes || hasErrors}
              loading={isSaving}
              size="S"
            >
              {formatMessage({ id: 'global.save', defaultMessage: 'Save' })}
            </Button>
          ) : undefined
        }
      />
      <Layouts.Content>
        {settings.connections.length > 1 ? (
          <ConnectionPicker settings={settings} onChange={openConnection} />
        ) : null}
        <Tabs.Root value={tab} onValueChange={openTab} variant="simple">
          <Tabs.List
            aria-label={formatMessage({
              id: getTranslation('tabs.label'),
              defaultMessage: 'Publish Bridge sections',
            })}
          >
            <Tabs.Trigger value="connection">
              {formatMessage({ id: getTranslation('tabs.connection'), defaultMessage: 'Connection' })}
            </Tabs.Trigger>
            {canReadLogs ? (
              <Tabs.Trigger value="activity">
                {formatMessage({ id: getTranslation('tabs.activity'), defaultMessage: 'Activity log' })}
              </Tabs.Trigger>
            ) : null}
            {canReadLogs ? (
              <Tabs.Trigger value="delivery">
                {formatMessage({ id: getTranslation('tabs.delivery'), defaultMessage: 'Delivery log' })}
              </Tabs.Trigger>
            ) : null}
          </Tabs.List>
          <Tabs.Content value="connection">
            {/* The form holds the connection tab only: the log tabs' filter forms must not submit it. */}
            <form id={FORM_ID} onSubmit={save} noValidate>
              <Flex direction="column" alignItems="stretch" gap={6} paddingTop={6}>
                <StatusCard settings={settings} canReadLogs={canReadLogs} />
                <ConnectionCard settings={settings} form={form} canUpdate={canUpdate} />
                <CapabilitiesCard settings={settings} form={form} canUpdate={canUpdate} />
                <EditorChangesCard form={form} canUpdate={canUpdate} />
                <StorageCard settings={settings} />
                <PlatformCard settings={settings} form={form} canUpdate={canUpdate} />
              </Flex>
            </form>
          </Tabs.Content>
          {canReadLogs ? (
            <Tabs.Content value="activity">
              <Flex direction="column" alignItems="stretch" paddingTop={6}>
                {tab === 'activity' ? <ActivityTab prefix={new URL(settings.baseUrl).pathname} /> : null}
              </Flex>
            </Tabs.Content>
          ) : null}
          {canReadLogs ? (
            <Tabs.Content value="delivery">
              <Flex direction="column" alignItems="stretch" paddingTop={6}>
                {tab === 'delivery' ? (
                  <DeliveryLogTab
                    configured={Boolean(settings.platform.url && settings.platform.key)}
                    onConfigure={() => openTab('connection')}
                  />
                ) : null}
              </Flex>
            </Tabs.Content>
          ) : null}
        </Tabs.Root>
      </Layouts.Content>
    </>
  );
};

export const ProtectedSettingsPage = () => (
  <Page.Protect permissions={PERMISSIONS.read}>
    <SettingsPage />
  </Page.Protect>
);
