import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

/**
 * Fingerprints of what the plugin wrote, so that an update can tell which fields someone changed
 * in Strapi since. A value is fingerprinted in one canonical form whether it is the data the
 * plugin sent (`{ set: [ids] }`, a file id, a component without its id) or the value the Document
 * Service reads back (related entries, file entries, components with ids): what every database
 * stores and returns the same way, and nothing Strapi makes up on its own (row ids, key order,
 * sub-second precision that MariaDB drops).
 */

/** The part of an attribute's schema that decides how its value is compared. */
export type AttributeShape = {
  type: string;
  component?: string;
  repeatable?: boolean;
  /** A media attribute that holds several files. */
  multiple?: boolean;
  default?: unknown;
};

/** Attribute shapes by content type or component uid. */
export type ShapesOf = (uid: string) => Record<string, AttributeShape> | undefined;

/**
 * Digests of the values a contract field was last written as, by the attribute holding each
 * (a field may be stored in several: the seo object split into a site's own fields).
 */
export type FieldFingerprint = Record<string, string>;

/** Fingerprints by contract field. */
export type Fingerprints = Record<string, FieldFingerprint>;

type Values = Record<string, unknown>;

const isObject = (value: unknown): value is Values =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether V8 lists `key` among an object's array indices, which come first, in ascending order. */
const isArrayIndex = (key: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/** Object keys in the order `JSON.parse` of a sorted copy lists them: array indices first, by value. */
function objectKeyOrder(a: string, b: string): number {
  const aIndex = isArrayIndex(a);
  if (aIndex !== isArrayIndex(b)) return aIndex ? -1 : 1;
  if (aIndex) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * JSON text with every object's keys in one order: PostgreSQL's jsonb keeps them in an order of
 * its own. The order is the one a copy with sorted keys serialises in (an object lists integer
 * keys first), so the digests stored before this text was written without a copy stay valid.
 */
const canonicalJson = configure({ deterministic: objectKeyOrder });

const isJson = (shape: AttributeShape) => shape.type === 'json' || shape.type === 'blocks';

/** The documentIds a relation value names: `{ set }`, an id, or entries as read. */
function relatedIds(value: unknown): string[] {
  const items = isObject(value) && Array.isArray(value.set) ? value.set : value == null ? [] : value;
  return (Array.isArray(items) ? items : [items])
    .map((item) => (isObject(item) ? item.documentId : item))
    .filter((id): id is string => typeof id === 'string')
    .sort();
}

/** The file ids a media value names, in order: ids, or file entries as read. */
const fileIds = (value: unknown): unknown[] =>
  (Array.isArray(value) ? value : value == null ? [] : [value]).map((item) =>
    isObject(item) ? item.id : item
  );

/**
 * A component's own values as the Document Service reads them one level deep: what it nests
 * (relations, media, components) is not read, so it is not compared either. A key the value
 * leaves out holds the attribute's default, as Strapi stores it.
 */
function componentValues(value: unknown, shapes: ShapesOf, uid: string | undefined): unknown {
  if (!isObject(value) || !uid) return null;
  const attributes = shapes(uid) ?? {};
  const own = Object.entries(attributes).filter(
    ([, shape]) => !['relation', 'media', 'component', 'dynamiczone'].includes(shape.type)
  );
  return Object.fromEntries(
    own.map(([name, shape]) => [name, canonical(name in value ? value[name] : shape.default, shape, shapes)])
  );
}

/** `value` of an attribute shaped `shape` in the one form every reading of it shares. */
export function canonical(value: unknown, shape: AttributeShape, shapes: ShapesOf): unknown {
  switch (shape.type) {
    case 'relation':
      return relatedIds(value);
    case 'media':
      return fileIds(value);
    case 'component':
      return shape.repeatable
        ? (Array.isArray(value) ? value : []).map((item) => componentValues(item, shapes, shape.component))
        : value == null
          ? null
          : componentValues(value, shapes, shape.component);
    case 'dynamiczone':
      return (Array.isArray(value) ? value : []).map((entry) => {
        const uid = isObject(entry) ? (entry.__component as string) : undefined;
        return [uid, componentValues(entry, shapes, uid)];
      });
    case 'datetime':
    case 'timestamp': {
      if (value == null || value === '') return null;
      const time = new Date(value as string).getTime();
      return Number.isNaN(time) ? String(value) : Math.floor(time / 1000);
    }
    case 'date':
      if (value == null || value === '') return null;
      return value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10);
    case 'boolean':
      return value == null ? null : Boolean(value);
    case 'integer':
    case 'float':
    case 'decimal':
      return value == null || value === '' ? null : Number(value);
    case 'json':
    case 'blocks':
      // Inside a component, beside its other values: parsed back, its keys keep the text's order.
      return JSON.parse(canonicalJson(value ?? null) ?? 'null');
    default:
      return value === '' || value === undefined ? null : value;
  }
}

/**
 * A component written with the id of the stored one is updated in place: the keys it leaves out
 * keep their stored values, so the value stored afterwards is the sent keys over the stored ones.
 */
function asStored(sent: unknown, stored: unknown): unknown {
  if (isObject(sent) && isObject(stored) && sent.id !== undefined && sent.id === stored.id) {
    return { ...stored, ...sent };
  }
  return sent;
}

/**
 * The digest of the value stored in `attribute`. `stored`, when given, is what the document held
 * before `values` was written over it (a component updated in place keeps what was not sent).
 */
export function digestOf(
  attribute: string,
  values: Values,
  shapeOf: Record<string, AttributeShape>,
  shapes: ShapesOf,
  stored?: Values | null
): string {
  const shape = shapeOf[attribute] ?? { type: 'json' };
  const value =
    shape.type === 'component' ? asStored(values[attribute], stored?.[attribute]) : values[attribute];
  const text = isJson(shape)
    ? canonicalJson(value ?? null)
    : JSON.stringify(canonical(value, shape, shapes) ?? null);
  return createHash('sha256')
    .update(text ?? 'null')
    .digest('base64url')
    .slice(0, 32);
}

/**
 * The fields among `fields` whose stored values no longer match what the plugin last wrote. A
 * field without a fingerprint (never written, or written before fingerprints were kept) is not
 * among them; an attribute the site's type no longer has is not compared.
 */
export function changedFields(
  fields: string[],
  fingerprints: Fingerprints,
  current: Values,
  shapeOf: Record<string, AttributeShape>,
  shapes: ShapesOf
): string[] {
  return fields.filter((field) =>
    Object.entries(fingerprints[field] ?? {}).some(
      ([attribute, digest]) =>
        attribute in shapeOf && digestOf(attribute, current, shapeOf, shapes) !== digest
    )
  );
}

/** The attributes whose values `fingerprints` records for `fields`. */
export const fingerprintedAttributes = (fields: string[], fingerprints: Fingerprints): string[] => [
  ...new Set(fields.flatMap((field) => Object.keys(fingerprints[field] ?? {}))),
];
