import { Link } from '@strapi/design-system';
import { NavLink } from 'react-router-dom';
import type { EntryLocation } from '../types';

/** An entry by its title (else its id), linked to it in the Content Manager when it exists. */
export const EntryLink = ({ id, entry }: { id?: string; entry?: EntryLocation }) => {
  if (!id) return <>-</>;
  if (!entry) return <>{id}</>;
  return (
    <Link
      tag={NavLink}
      to={`/content-manager/collection-types/${entry.uid}/${entry.documentId}`}
      onClick={(event: React.MouseEvent) => event.stopPropagation()}
    >
      {entry.title ?? id}
    </Link>
  );
};
