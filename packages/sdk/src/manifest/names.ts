// Syntax rules for names, labels, annotations and taints, as Kubernetes and Claudie define them.
// Each check returns null when the value is fine, or a sentence that says what is wrong.

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * The same rules as JSON Schema patterns, for the editor schemas (json-schema.ts). A pattern cannot count the
 * parts of a qualified name separately, so lengths are left to maxLength where one applies and to the validator.
 */
export const NAME_PATTERNS = {
  dns1123Label: DNS1123_LABEL.source,
  dnsSubdomain: DNS1123_SUBDOMAIN.source,
  qualifiedName: `^(${DNS1123_SUBDOMAIN.source.slice(1, -1)}/)?${QUALIFIED_NAME_PART.source.slice(1)}`,
  labelValue: LABEL_VALUE.source,
} as const;

/** Checks a DNS-1123 label (RFC 1123) of at most `maxLength`; the message when it is not one, else null. */
export function checkDns1123Label(value: string, what: string, maxLength: number): string | null {
  if (value.length === 0) return `${what} must not be empty`;
  if (value.length > maxLength) return `${what} "${value}" is ${value.length} characters; at most ${maxLength} are allowed`;
  if (!DNS1123_LABEL.test(value)) {
    return `${what} "${value}" must be a DNS-1123 label: lower-case letters, digits and '-', starting and ending with a letter or digit`;
  }
  return null;
}

/** Checks a DNS name (RFC 1123 subdomain); the message when it is not one, else null. */
export function checkDnsName(value: string, what: string): string | null {
  if (value.length > 253 || !DNS1123_SUBDOMAIN.test(value)) {
    return `${what} "${value}" must be a lower-case DNS name such as example.com`;
  }
  return null;
}

/** A label or annotation key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
export function checkQualifiedName(key: string, what: string): string | null {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) {
    return `${what} "${key}" has an invalid prefix "${prefix}"; it must be a lower-case DNS subdomain such as example.com`;
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME_PART.test(name)) {
    return `${what} "${key}" must be at most 63 characters of letters, digits, '-', '_' and '.', starting and ending with a letter or digit`;
  }
  return null;
}

/** Checks a Kubernetes label value; the message when it is not one, else null. */
export function checkLabelValue(value: string, what: string): string | null {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    return `${what} "${value}" must be empty or at most 63 characters of letters, digits, '-', '_' and '.', starting and ending with a letter or digit`;
  }
  return null;
}

/** The taint effects Kubernetes knows. */
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
/** One of Kubernetes' taint effects. */
export type TaintEffect = (typeof TAINT_EFFECTS)[number];
