import * as React from 'react';
import { Alert, Box, Flex, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';

type CardProps = {
  title: string;
  subtitle?: React.ReactNode;
  action?: React.ReactNode;
  children: React.ReactNode;
};

/** The white section box of Strapi's own settings pages. */
export const Card = ({ title, subtitle, action, children }: CardProps) => (
  <Box background="neutral0" padding={6} shadow="filterShadow" hasRadius>
    <Flex direction="column" alignItems="stretch" gap={4}>
      <Flex justifyContent="space-between" alignItems="flex-start" gap={4}>
        <Flex direction="column" alignItems="stretch" gap={1}>
          <Typography variant="delta" tag="h2">
            {title}
          </Typography>
          {subtitle ? (
            <Typography variant="pi" textColor="neutral600">
              {subtitle}
            </Typography>
          ) : null}
        </Flex>
        {action}
      </Flex>
      {children}
    </Flex>
  </Box>
);

type CardAlertProps = { variant: 'danger' | 'warning'; title: string; children: React.ReactNode };

/** A problem a card reports above its fields, closed with Strapi's own "Close". */
export const CardAlert = ({ variant, title, children }: CardAlertProps) => {
  const { formatMessage } = useIntl();
  return (
    <Alert
      variant={variant}
      closeLabel={formatMessage({ id: 'global.close', defaultMessage: 'Close' })}
      title={title}
    >
      {children}
    </Alert>
  );
};
