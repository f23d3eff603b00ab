import * as React from 'react';
import { Button, Field, Flex, Grid, JSONInput, Modal, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';

export type Fact = { label: string; value: React.ReactNode };
export type Payload = { label: string; value: string };

type Props = { title: string; facts: Fact[]; payloads?: Payload[]; onClose: () => void };

/** Pretty-prints JSON text; anything else is shown as it came. */
const pretty = (value: string) => {
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
};

/** One log entry in full, laid out like the details of Strapi's audit logs. */
export const DetailsModal = ({ title, facts, payloads = [], onClose }: Props) => {
  const { formatMessage } = useIntl();
  return (
    <Modal.Root open onOpenChange={(open: boolean) => (open ? undefined : onClose())}>
      <Modal.Content>
        <Modal.Header>
          <Modal.Title>{title}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Flex direction="column" alignItems="stretch" gap={4}>
            <Grid.Root
              gap={4}
              gridCols={2}
              paddingTop={4}
              paddingBottom={4}
              paddingLeft={6}
              paddingRight={6}
              background="neutral100"
              hasRadius
            >
              {facts.map(({ label, value }) => (
                <Flex key={label} direction="column" alignItems="baseline" gap={1}>
                  <Typography textColor="neutral600" variant="sigma">
                    {label}
                  </Typography>
                  <Typography textColor="neutral800" style={{ wordBreak: 'break-word' }}>
                    {value}
                  </Typography>
                </Flex>
              ))}
            </Grid.Root>
            {payloads.map(({ label, value }) => (
              <Field.Root key={label} name={label}>
                <Field.Label>{label}</Field.Label>
                <JSONInput value={pretty(value)} disabled maxHeight="24rem" />
              </Field.Root>
            ))}
          </Flex>
        </Modal.Body>
        <Modal.Footer>
          <Modal.Close>
            <Button variant="tertiary">
              {formatMessage({ id: 'global.close', defaultMessage: 'Close' })}
            </Button>
          </Modal.Close>
        </Modal.Footer>
      </Modal.Content>
    </Modal.Root>
  );
};
