import { Link } from '@strapi/design-system';
import { NavLink } from 'react-router-dom';
import type { EntryLocation } from '../types';

/** An entity id, linked to its entry in the Content Manager when the entry exists. */
export const EntryLink = ({ id, entry }: { id?: string; entry?: EntryLocation }) => {
  if (!id) return <>-</>;
  if (!entry) return <>{id}</>;
  return (
    <Link
      tag={NavLink}
      to={`/content-manager/collection-types/${entry.uid}/${entry.documentId}`}
      onClick={(event: React.MouseEvent) => event.stopPropagation()}
    >
      {id}
    </Link>
  );
};
