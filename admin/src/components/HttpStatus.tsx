import { Status, Typography } from '@strapi/design-system';
import type { Outcome } from '../types';

const VARIANTS = { success: 'success', rejected: 'warning', error: 'danger' } as const;

/** An HTTP status coloured by what it meant for the publisher: done, refused, or broken. */
export const HttpStatus = ({ status, outcome }: { status: number | string; outcome: Outcome }) => (
  <Status variant={VARIANTS[outcome]} size="S" width="fit-content">
    <Typography tag="span" variant="omega" fontWeight="bold">
      {status}
    </Typography>
  </Status>
);
