import { Badge, Flex, Table, Tbody, Td, Th, Thead, Tr, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { Settings } from '../types';
import { getTranslation } from '../utils/getTranslation';
import { Card } from './Card';

const RESOURCE_LABELS: Record<string, string> = {
  post: 'Posts',
  blogCategory: 'Blog categories',
  tag: 'Tags',
  author: 'Authors',
  product: 'Products',
  productCategory: 'Product categories',
};

/** Where each resource is stored. Read-only: the mapping is part of the site's code (config/plugins). */
// Over 50 lines: a card's JSX and its translated text; it only chooses what to show.
export const StorageCard = ({ settings }: { settings: Settings }) => {
  const { formatMessage } = useIntl();
  const text = (id: string, defaultMessage: string, values?: Record<string, string>) =>
    formatMessage({ id: getTranslation(id), defaultMessage }, values);

  return (
    <Card
      title={text('storage.title', 'Where content is stored')}
      subtitle={text(
        'storage.subtitle',
        'Set in config/plugins (contentTypes) and checked when Strapi starts. Contract fields that are not mapped are not stored, except source_id: the plugin remembers it either way, so publishing the same source_id again updates the same entry.'
      )}
    >
      <Table colCount={3} rowCount={settings.storage.length + 1}>
        <Thead>
          <Tr>
            <Th>
              <Typography variant="sigma">{text('storage.resource', 'Resource')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">{text('storage.contentType', 'Content type')}</Typography>
            </Th>
            <Th>
              <Typography variant="sigma">
                {text('storage.fields', 'Fields (contract → attribute)')}
              </Typography>
            </Th>
          </Tr>
        </Thead>
        <Tbody>
          {settings.storage.map((storage) => (
            <Tr key={storage.resource}>
              <Td>
                <Typography textColor="neutral800">
                  {text(
                    `storage.resource.${storage.resource}`,
                    RESOURCE_LABELS[storage.resource] ?? storage.resource
                  )}
                </Typography>
              </Td>
              <Td>
                <Flex direction="column" alignItems="flex-start" gap={1}>
                  <Typography textColor="neutral800">{storage.displayName}</Typography>
                  <Flex gap={2}>
                    <Typography variant="pi" textColor="neutral600">
                      {storage.uid}
                    </Typography>
                    {storage.ownedByPlugin ? (
                      <Badge>{text('storage.pluginType', 'Plugin type')}</Badge>
                    ) : (
                      <Badge active>{text('storage.siteType', 'Site type')}</Badge>
                    )}
                  </Flex>
                </Flex>
              </Td>
              <Td>
                <Flex direction="column" alignItems="flex-start" gap={1} paddingTop={2} paddingBottom={2}>
                  {/* Table cells do not wrap by default; a mapping is a long list. */}
                  <Typography variant="pi" textColor="neutral700" style={{ whiteSpace: 'normal' }}>
                    {storage.fields.map(({ field, attribute }) => `${field} → ${attribute}`).join(' · ')}
                  </Typography>
                  {storage.unmapped.length > 0 ? (
                    <Typography variant="pi" textColor="warning600" style={{ whiteSpace: 'normal' }}>
                      {text('storage.unmapped', 'Not stored: {fields}', {
                        fields: storage.unmapped.join(', '),
                      })}
                    </Typography>
                  ) : null}
                </Flex>
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </Card>
  );
};
