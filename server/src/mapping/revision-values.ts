import type { LeftOutRelation } from '#contract/admin/revisions';
import type { AttributeShape } from './fingerprints';

/**
 * A revision's values as the Document Service writes them back. A revision keeps values as they
 * were read (related entries, files and components one level deep, with their ids): related
 * entries go back by documentId, files by id. A component or zone entry goes back in place
 * when the entry still holds one of that id, so what it nests (which was not read) stays;
 * otherwise it is made anew from the kept values.
 */

type Values = Record<string, unknown>;

const isObject = (value: unknown): value is Values =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value == null ? [] : [value]);

/** The components the entry holds now in one attribute, by type and id (a zone's types share ids). */
const keyOf = (item: Values) => `${String(item.__component ?? '')}#${String(item.id)}`;
const heldOf = (value: unknown) =>
  new Set(asList(value).flatMap((item) => (isObject(item) ? [keyOf(item)] : [])));

function componentBack(value: unknown, held: Set<string>): unknown {
  if (!isObject(value)) return value;
  const { id: _id, ...rest } = value;
  return held.has(keyOf(value)) ? value : rest;
}

const relatedDocumentId = (item: unknown) =>
  isObject(item) && typeof item.documentId === 'string' ? [item.documentId] : [];

/** The documentIds of the entries a kept relation value points at. */
export const relatedDocumentIds = (value: unknown): string[] => asList(value).flatMap(relatedDocumentId);

/**
 * The kept values without the related entries that no longer exist (`exists(attribute, documentId)`
 * says which do), and the relations that lost one, by name. A relation left with no entry is not written at
 * all, so a restore into an existing entry keeps what it holds there now.
 */
export function withoutDanglingRelations(
  kept: Values,
  shapeOf: Record<string, AttributeShape>,
  exists: (attribute: string, documentId: string) => boolean
): { kept: Values; leftOut: LeftOutRelation[] } {
  const leftOut: LeftOutRelation[] = [];
  const remaining = Object.entries(kept).flatMap(([attribute, value]) => {
    if (shapeOf[attribute]?.type !== 'relation') return [[attribute, value]];
    const items = asList(value);
    const existing = items.filter((item) =>
      relatedDocumentId(item).every((documentId) => exists(attribute, documentId))
    );
    if (existing.length === items.length) return [[attribute, value]];
    leftOut.push({
      field: attribute,
      reason: Array.isArray(value)
        ? 'a related entry no longer exists'
        : 'the related entry no longer exists',
    });
    if (existing.length === 0) return [];
    return [[attribute, Array.isArray(value) ? existing : existing[0]]];
  });
  // By name: a revision's attributes come back in no set order (PostgreSQL's jsonb reorders them).
  leftOut.sort((a, b) => a.field.localeCompare(b.field));
  return { kept: Object.fromEntries(remaining), leftOut };
}

export function writableValue(value: unknown, shape: AttributeShape, current: unknown): unknown {
  switch (shape.type) {
    case 'relation':
      return { set: relatedDocumentIds(value) };
    case 'media': {
      const ids = asList(value).map((item) => (isObject(item) ? item.id : item));
      return shape.multiple ? ids : (ids[0] ?? null);
    }
    case 'component':
    case 'dynamiczone': {
      const held = heldOf(current);
      return Array.isArray(value)
        ? value.map((item) => componentBack(item, held))
        : componentBack(value, held);
    }
    default:
      return value;
  }
}

/** Every kept attribute's value in the form it is written back in. */
export function writableValues(
  kept: Values,
  shapeOf: Record<string, AttributeShape>,
  current: Values | null
): Values {
  return Object.fromEntries(
    Object.entries(kept)
      .filter(([attribute]) => attribute in shapeOf)
      .map(([attribute, value]) => [
        attribute,
        writableValue(value, shapeOf[attribute], current?.[attribute]),
      ])
  );
}
