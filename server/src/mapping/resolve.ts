import {
  adapterFor,
  DEFAULT_MAPPING,
  FIELD_ROLES,
  NAME_FIELD,
  RELATION_TARGETS,
  RESOURCE_KINDS,
  type Adapter,
  type FieldMapping,
  type ResourceKind,
} from './catalogue';

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
  customField?: string;
  required?: boolean;
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
export type SeoParts = { title?: SeoPart; description?: SeoPart; keywords?: SeoPart };

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

/** The community SEO plugin's `shared.seo` attribute names, which sites copy. */
const SEO_COMPONENT_PARTS = {
  title: 'metaTitle',
  description: 'metaDescription',
  keywords: 'keywords',
} as const;

/** Relation kinds that hold a list; the others (manyToOne, oneToOne, oneWay, morphToOne) hold one entry. */
const MULTIPLE_RELATIONS = ['oneToMany', 'manyToMany', 'manyWay', 'morphToMany'];

const limitsOf = (attribute: AttributeSchema): LengthLimits => ({
  min: attribute.minLength,
  max: attribute.maxLength,
});

export function resolveMapping(
  config: MappingConfig,
  schemaOf: SchemaLookup,
  componentOf: SchemaLookup
): ResolvedMapping {
  const problems: string[] = [];
  const chosen = Object.fromEntries(
    RESOURCE_KINDS.map((kind) => [kind, config[kind] ?? DEFAULT_MAPPING[kind]])
  ) as Record<ResourceKind, { uid: string; fields: Record<string, FieldMapping> }>;
  const resources = {} as Record<ResourceKind, ResolvedResource>;

  for (const kind of RESOURCE_KINDS) {
    const { uid, fields } = chosen[kind];
    const where = `contentTypes.${kind}`;
    const schema = schemaOf(uid);
    if (!schema) {
      problems.push(`${where}.uid: "${uid}" is not a content type of this site.`);
      continue;
    }
    const resolved: ResolvedResource = {
      kind,
      uid,
      draftAndPublish: schema.draftAndPublish,
      fields: {},
      nameField: '',
      unmapped: Object.keys(FIELD_ROLES[kind]).filter(
        (field) => fields[field] === undefined && field !== 'slug'
      ),
    };

    for (const [field, mapping] of Object.entries(fields)) {
      const role = FIELD_ROLES[kind][field];
      const at = `${where}.fields.${field}`;
      if (!role) {
        problems.push(
          `${at}: "${field}" is not a contract field of ${kind} (known: ${Object.keys(FIELD_ROLES[kind]).join(', ')}).`
        );
        continue;
      }
      if (typeof mapping === 'object') {
        const seo = resolveSeoFields(mapping, schema.attributes, uid, at, problems);
        if (seo) resolved.fields[field] = { adapter: 'seoFields', attribute: '', limits: {}, seo };
        continue;
      }
      const attribute = schema.attributes[mapping];
      if (!attribute) {
        problems.push(
          `${at}: ${uid} has no attribute "${mapping}" (its attributes: ${Object.keys(schema.attributes).join(', ')}).`
        );
        continue;
      }
      const adapter = adapterFor(role, attribute.type);
      if (!adapter) {
        problems.push(
          `${at}: attribute "${mapping}" of ${uid} is of type "${attribute.type}", which cannot hold ${field}.`
        );
        continue;
      }
      const target: FieldTarget = {
        adapter,
        attribute: mapping,
        attributeType: attribute.type,
        customField: attribute.customField,
        limits: limitsOf(attribute),
        multiple: attribute.multiple,
      };
      if (adapter === 'relation') {
        const targetKind = RELATION_TARGETS[kind]?.[field];
        const expectedUid = targetKind ? chosen[targetKind].uid : undefined;
        if (!targetKind || attribute.target !== expectedUid) {
          problems.push(
            `${at}: relation "${mapping}" points to ${attribute.target}, but ${targetKind ?? field} is stored in ${expectedUid ?? 'nothing'}; map contentTypes.${targetKind} to ${attribute.target} or choose another attribute.`
          );
          continue;
        }
        target.targetKind = targetKind;
        target.multiple = MULTIPLE_RELATIONS.includes(attribute.relation ?? '');
      }
      if (adapter === 'seoComponent') {
        const seo = resolveSeoComponent(attribute, componentOf, at, problems);
        if (!seo) continue;
        target.seo = seo;
      }
      resolved.fields[field] = target;
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
    resources[kind] = resolved;
  }
  return { resources, problems };
}

function resolveSeoFields(
  mapping: Exclude<FieldMapping, string>,
  attributes: Record<string, AttributeSchema>,
  uid: string,
  at: string,
  problems: string[]
): SeoParts | undefined {
  const parts: SeoParts = {};
  for (const part of ['title', 'description', 'keywords'] as const) {
    const name = mapping[part];
    if (!name) continue;
    const attribute = attributes[name];
    const adapter =
      attribute &&
      (part === 'keywords' ? adapterFor('names', attribute.type) : adapterFor('text', attribute.type));
    if (!attribute || !adapter || adapter === 'relation') {
      problems.push(
        `${at}.${part}: ${uid} has no text${part === 'keywords' ? ' or JSON' : ''} attribute "${name}".`
      );
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
  for (const part of ['title', 'description', 'keywords'] as const) {
    const name = SEO_COMPONENT_PARTS[part];
    const partAttribute = component.attributes[name];
    if (!partAttribute) continue;
    const adapter =
      part === 'keywords' ? adapterFor('names', partAttribute.type) : adapterFor('text', partAttribute.type);
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
    problems.push(`${at}: component ${attribute.component} has neither metaTitle nor metaDescription.`);
    return undefined;
  }
  return parts;
}
