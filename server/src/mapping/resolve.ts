import { SEO_PART_NAMES, SEO_PARTS, seoPartSpec, type SeoPartName } from '../contract/seo-parts';
import {
  adapterFor,
  DEFAULT_MAPPING,
  FIELD_ROLES,
  REMEMBERED_FIELDS,
  NAME_FIELD,
  RELATION_TARGETS,
  RESOURCE_KINDS,
  type Adapter,
  type FieldMapping,
  type ResourceKind,
  type SeoMapping,
  type ZoneMapping,
} from './catalogue';
import type { QuoteLimits } from './html-to-sections';

/** The slice of a Strapi schema the mapping needs. */
export type AttributeSchema = {
  type: string;
  target?: string;
  multiple?: boolean;
  component?: string;
  repeatable?: boolean;
  minLength?: number;
  maxLength?: number;
  relation?: string;
  /** Set on the inverse side of a relation: the attribute of `target` that owns it. */
  mappedBy?: string;
  customField?: string;
  required?: boolean;
  /** A dynamic zone's allowed components. */
  components?: string[];
};
export type SchemaLookup = (
  uid: string
) => { attributes: Record<string, AttributeSchema>; draftAndPublish: boolean } | undefined;

export type LengthLimits = { min?: number; max?: number };
export type SeoPart = {
  attribute: string;
  adapter: Adapter;
  attributeType: string;
  limits: LengthLimits;
  /** Set when the site's component refuses to be saved without this part. */
  required?: boolean;
};
export type SeoParts = Partial<Record<SeoPartName, SeoPart>>;

export type FieldTarget = {
  adapter: Adapter;
  attribute: string;
  /** The Strapi attribute type; `string` columns hold at most 255 characters on every database. */
  attributeType?: string;
  /** Set for a custom field (a CKEditor, say): it stores the value as sent. */
  customField?: string;
  limits: LengthLimits;
  multiple?: boolean;
  targetKind?: ResourceKind;
  /** For `seoComponent` and `seoFields`: where each part of the contract's seo object goes. */
  seo?: SeoParts;
  /** For `dynamicZone`: the components the HTML's sections are written as. */
  zone?: ZoneComponents;
};

/** The zone's components the plugin writes; components of any other type belong to editors. */
export type ZoneComponents = {
  text: { uid: string; attribute: string; attributeType: string; customField?: string };
  image?: { uid: string; attribute: string };
  quote?: { uid: string; body: string; title?: string; limits: QuoteLimits };
};

export type ResolvedResource = {
  kind: ResourceKind;
  uid: string;
  draftAndPublish: boolean;
  fields: Record<string, FieldTarget>;
  nameField: string;
  slugField?: string;
  /** Contract fields this resource does not store. */
  unmapped: string[];
};

export type MappingConfig = Partial<
  Record<ResourceKind, { uid: string; fields: Record<string, FieldMapping> }>
>;
export type ResolvedMapping = { resources: Record<ResourceKind, ResolvedResource>; problems: string[] };

/** Relation kinds that hold a list; the others (manyToOne, oneToOne, oneWay, morphToOne) hold one entry. */
const MULTIPLE_RELATIONS = ['oneToMany', 'manyToMany', 'manyWay', 'morphToMany'];

const limitsOf = (attribute: AttributeSchema): LengthLimits => ({
  min: attribute.minLength,
  max: attribute.maxLength,
});

type ChosenMapping = Record<ResourceKind, { uid: string; fields: Record<string, FieldMapping> }>;

/** Each resource's mapping (the site's, or the plugin's own type) checked against the site's schemas. */
export function resolveMapping(
  config: MappingConfig,
  schemaOf: SchemaLookup,
  componentOf: SchemaLookup
): ResolvedMapping {
  const problems: string[] = [];
  const chosen = Object.fromEntries(
    RESOURCE_KINDS.map((kind) => [kind, config[kind] ?? DEFAULT_MAPPING[kind]])
  ) as ChosenMapping;
  const resources = {} as Record<ResourceKind, ResolvedResource>;
  for (const kind of RESOURCE_KINDS) {
    const resolved = resolveResource(kind, chosen, schemaOf, componentOf, problems);
    if (resolved) resources[kind] = resolved;
  }
  return { resources, problems };
}

function resolveResource(
  kind: ResourceKind,
  chosen: ChosenMapping,
  schemaOf: SchemaLookup,
  componentOf: SchemaLookup,
  problems: string[]
): ResolvedResource | undefined {
  const { uid, fields } = chosen[kind];
  const where = `contentTypes.${kind}`;
  const schema = schemaOf(uid);
  if (!schema) {
    problems.push(`${where}.uid: "${uid}" is not a content type of this site.`);
    return undefined;
  }
  const resolved: ResolvedResource = {
    kind,
    uid,
    draftAndPublish: schema.draftAndPublish,
    fields: {},
    nameField: '',
    unmapped: Object.keys(FIELD_ROLES[kind]).filter(
      (field) => fields[field] === undefined && field !== 'slug' && !REMEMBERED_FIELDS[kind]?.includes(field)
    ),
  };
  for (const [field, mapping] of Object.entries(fields)) {
    const target = resolveField({ kind, field, mapping, uid, schema, chosen, componentOf, problems });
    if (target) resolved.fields[field] = target;
  }

  const nameField = NAME_FIELD[kind];
  const nameTarget = resolved.fields[nameField];
  if (!nameTarget || nameTarget.adapter !== 'text') {
    problems.push(
      `${where}.fields.${nameField}: must name a text attribute; ${kind} entries are found and titled by it.`
    );
  } else {
    resolved.nameField = nameTarget.attribute;
  }
  const slug = resolved.fields.slug;
  if (slug) resolved.slugField = slug.attribute;
  return resolved;
}

type FieldContext = {
  kind: ResourceKind;
  field: string;
  mapping: FieldMapping;
  uid: string;
  schema: NonNullable<ReturnType<SchemaLookup>>;
  chosen: ChosenMapping;
  componentOf: SchemaLookup;
  problems: string[];
};

/** Where one contract field goes, or undefined with the reason in `problems`. */
function resolveField(context: FieldContext): FieldTarget | undefined {
  const { kind, field, mapping, uid, schema, problems } = context;
  const role = FIELD_ROLES[kind][field];
  const at = `contentTypes.${kind}.fields.${field}`;
  if (!role) {
    problems.push(
      `${at}: "${field}" is not a contract field of ${kind} (known: ${Object.keys(FIELD_ROLES[kind]).join(', ')}).`
    );
    return undefined;
  }
  const zoneMapping = typeof mapping === 'object' && 'attribute' in mapping ? mapping : undefined;
  if (typeof mapping === 'object' && !zoneMapping) {
    const seo = resolveSeoFields(mapping as SeoMapping, schema.attributes, uid, at, problems);
    return seo ? { adapter: 'seoFields', attribute: '', limits: {}, seo } : undefined;
  }
  const attributeName = zoneMapping ? zoneMapping.attribute : (mapping as string);
  const attribute = schema.attributes[attributeName];
  if (!attribute) {
    problems.push(
      `${at}: ${uid} has no attribute "${attributeName}" (its attributes: ${Object.keys(schema.attributes).join(', ')}).`
    );
    return undefined;
  }
  if (zoneMapping && attribute.type !== 'dynamiczone') {
    problems.push(
      `${at}: the { attribute, components } form is for dynamic zones; "${attributeName}" of ${uid} is of type "${attribute.type}", so map it as "${attributeName}".`
    );
    return undefined;
  }
  const adapter = adapterFor(role, attribute.type);
  if (!adapter) {
    problems.push(
      `${at}: attribute "${attributeName}" of ${uid} is of type "${attribute.type}", which cannot hold ${field}.`
    );
    return undefined;
  }
  const target: FieldTarget = {
    adapter,
    attribute: attributeName,
    attributeType: attribute.type,
    customField: attribute.customField,
    limits: limitsOf(attribute),
    multiple: attribute.multiple,
  };
  const details = adapterDetails(target, attribute, zoneMapping, at, context);
  return details && { ...target, ...details };
}

/** What a relation, an SEO component and a dynamic zone need beyond the attribute; undefined when it cannot be stored. */
function adapterDetails(
  { adapter, attribute: attributeName }: FieldTarget,
  attribute: AttributeSchema,
  zoneMapping: ZoneMapping | undefined,
  at: string,
  { kind, field, chosen, componentOf, problems }: FieldContext
): Partial<FieldTarget> | undefined {
  if (adapter === 'relation') {
    const targetKind = RELATION_TARGETS[kind]?.[field];
    const expectedUid = targetKind ? chosen[targetKind].uid : undefined;
    if (!targetKind || attribute.target !== expectedUid) {
      problems.push(
        `${at}: relation "${attributeName}" points to ${attribute.target}, but ${targetKind ?? field} is stored in ${expectedUid ?? 'nothing'}; map contentTypes.${targetKind} to ${attribute.target} or choose another attribute.`
      );
      return undefined;
    }
    return { targetKind, multiple: MULTIPLE_RELATIONS.includes(attribute.relation ?? '') };
  }
  if (adapter === 'seoComponent') {
    const seo = resolveSeoComponent(attribute, componentOf, at, problems);
    return seo && { seo };
  }
  if (adapter === 'dynamicZone') {
    const zone = resolveZone(
      attributeName,
      attribute,
      zoneMapping?.components ?? {},
      componentOf,
      at,
      problems
    );
    return zone && { zone };
  }
  return {};
}

/** How an seo part is written into an attribute of this type: a list of names, or text. */
const seoPartAdapter = (part: SeoPartName, attribute: AttributeSchema) =>
  adapterFor(seoPartSpec(part).kind === 'names' ? 'names' : 'text', attribute.type);

function resolveSeoFields(
  mapping: SeoMapping,
  attributes: Record<string, AttributeSchema>,
  uid: string,
  at: string,
  problems: string[]
): SeoParts | undefined {
  const parts: SeoParts = {};
  for (const part of SEO_PART_NAMES) {
    const name = mapping[part];
    if (!name) continue;
    const attribute = attributes[name];
    const adapter = attribute && seoPartAdapter(part, attribute);
    if (!attribute || !adapter || adapter === 'relation') {
      const names = seoPartSpec(part).kind === 'names';
      problems.push(`${at}.${part}: ${uid} has no text${names ? ' or JSON' : ''} attribute "${name}".`);
      return undefined;
    }
    parts[part] = { attribute: name, adapter, attributeType: attribute.type, limits: limitsOf(attribute) };
  }
  return parts;
}

function resolveSeoComponent(
  attribute: AttributeSchema,
  componentOf: SchemaLookup,
  at: string,
  problems: string[]
): SeoParts | undefined {
  const component = attribute.component ? componentOf(attribute.component) : undefined;
  if (!component || attribute.repeatable) {
    problems.push(`${at}: the seo component must be a single (not repeatable) component such as shared.seo.`);
    return undefined;
  }
  const parts: SeoParts = {};
  for (const part of SEO_PART_NAMES) {
    const name = seoPartSpec(part).componentAttribute;
    const partAttribute = component.attributes[name];
    if (!partAttribute) continue;
    const adapter = seoPartAdapter(part, partAttribute);
    if (adapter)
      parts[part] = {
        attribute: name,
        adapter,
        attributeType: partAttribute.type,
        limits: limitsOf(partAttribute),
        ...(partAttribute.required ? { required: true } : {}),
      };
  }
  if (!parts.title && !parts.description) {
    const { title, description } = SEO_PARTS;
    problems.push(
      `${at}: component ${attribute.component} has neither ${title.componentAttribute} nor ${description.componentAttribute}.`
    );
    return undefined;
  }
  return parts;
}

/** Varchar(255) on every database Strapi supports. */
const STRING_MAX = 255;

type ComponentSchema = { attributes: Record<string, AttributeSchema> };
/** A component's shape for one role, or why it does not fit. */
type Shape<T> = { ok: true; value: T } | { ok: false; reason: string };
type ZoneRole = keyof ZoneComponents;

const ZONE_ROLE_NEEDS: Record<ZoneRole, string> = {
  text: 'exactly one richtext or blocks attribute',
  image: 'exactly one single (not multiple) media attribute',
  quote: 'a text attribute "body" (and optionally a string "title")',
};

/** Attributes besides those the plugin fills must not be required: it could not save the component. */
function requiredOthers(component: ComponentSchema, filled: string[]): Shape<never> | undefined {
  const required = Object.entries(component.attributes).find(
    ([name, attribute]) => attribute.required && !filled.includes(name)
  );
  return (
    required && { ok: false, reason: `its attribute "${required[0]}" is required and has no contract value` }
  );
}

function only(component: ComponentSchema, matches: (attribute: AttributeSchema) => boolean) {
  const found = Object.entries(component.attributes).filter(([, attribute]) => matches(attribute));
  return found.length === 1 ? found[0] : undefined;
}

const ZONE_SHAPES: {
  [Role in ZoneRole]: (uid: string, component: ComponentSchema) => Shape<ZoneComponents[Role] & {}>;
} = {
  text(uid, component) {
    const body = only(component, (attribute) => ['richtext', 'blocks'].includes(attribute.type));
    if (!body) return { ok: false, reason: `it needs ${ZONE_ROLE_NEEDS.text}` };
    const [attribute, { type, customField }] = body;
    return (
      requiredOthers(component, [attribute]) ?? {
        ok: true,
        value: { uid, attribute, attributeType: type, customField },
      }
    );
  },
  image(uid, component) {
    const file = only(component, (attribute) => attribute.type === 'media');
    if (!file || file[1].multiple) return { ok: false, reason: `it needs ${ZONE_ROLE_NEEDS.image}` };
    return requiredOthers(component, [file[0]]) ?? { ok: true, value: { uid, attribute: file[0] } };
  },
  quote(uid, component) {
    const { body, title } = component.attributes;
    const isText = (attribute?: AttributeSchema) => ['text', 'string'].includes(attribute?.type ?? '');
    if (!isText(body)) return { ok: false, reason: `it needs ${ZONE_ROLE_NEEDS.quote}` };
    const withTitle = isText(title);
    const limit = (attribute: AttributeSchema) =>
      attribute.maxLength ?? (attribute.type === 'string' ? STRING_MAX : undefined);
    const value = {
      uid,
      body: 'body',
      ...(withTitle ? { title: 'title' } : {}),
      limits: { maxBody: limit(body), ...(withTitle ? { maxTitle: limit(title) } : {}) },
    };
    return requiredOthers(component, withTitle ? ['body', 'title'] : ['body']) ?? { ok: true, value };
  },
};

/**
 * The zone's components for text, images and quotes: those the mapping names, checked, else the
 * first of the zone's components with the right shape (for quotes, only one called `quote`).
 */
function resolveZone(
  attributeName: string,
  attribute: AttributeSchema,
  chosen: NonNullable<ZoneMapping['components']>,
  componentOf: SchemaLookup,
  at: string,
  problems: string[]
): ZoneComponents | undefined {
  const allowed = attribute.components ?? [];
  const pick = <Role extends ZoneRole>(role: Role): ZoneComponents[Role] | undefined | null => {
    const named = chosen[role];
    if (named === false) return undefined;
    if (named === undefined) {
      const candidates =
        role === 'quote' ? allowed.filter((uid) => uid.split('.').pop() === 'quote') : allowed;
      for (const uid of candidates) {
        const shape = ZONE_SHAPES[role](uid, componentOf(uid) ?? { attributes: {} });
        if (shape.ok) return shape.value;
      }
      return undefined;
    }
    const component = allowed.includes(named) ? componentOf(named) : undefined;
    if (!component) {
      problems.push(
        `${at}.components.${role}: "${named}" is not a component of dynamic zone "${attributeName}" (it allows: ${allowed.join(', ') || 'none'}).`
      );
      return null;
    }
    const shape = ZONE_SHAPES[role](named, component);
    if (shape.ok) return shape.value;
    problems.push(`${at}.components.${role}: component ${named} cannot hold ${role}s: ${shape.reason}.`);
    return null;
  };
  const [text, image, quote] = [pick('text'), pick('image'), pick('quote')];
  if (text === undefined) {
    problems.push(
      `${at}: dynamic zone "${attributeName}" has no component that can hold text (one with ${ZONE_ROLE_NEEDS.text}, such as shared.rich-text); add one to the zone or map this field elsewhere.`
    );
  }
  if (!text || image === null || quote === null) return undefined;
  return { text, ...(image ? { image } : {}), ...(quote ? { quote } : {}) };
}

/** What the boot log says about a dynamic zone: which component holds what. */
export function describeZone(attribute: string, { text, image, quote }: ZoneComponents): string {
  const images = image
    ? `images in ${image.uid}.${image.attribute}`
    : 'images stay in the text (no single-media component)';
  const quotes = quote
    ? `quotes in ${quote.uid} (${[quote.body, quote.title].filter(Boolean).join(', ')})`
    : 'quotes stay in the text (no quote component)';
  return `dynamic zone "${attribute}": text in ${text.uid}.${text.attribute}, ${images}, ${quotes}`;
}
