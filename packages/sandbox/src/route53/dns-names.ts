// How Route 53 writes and orders DNS names: lists are sorted by name with the labels reversed, then by type, and names
// come back with characters outside [a-z0-9-_] as octal escapes (`*` as `\052`).
/** A name as Route 53 keeps it: lower case, fully qualified, escapes decoded (`\052.example.com` -> `*.example.com.`). */
export function fqdn(name: string): string {
  const decoded = name.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))).toLowerCase();
  return decoded.endsWith('.') ? decoded : `${decoded}.`;
}

/**
 * A name as Route 53's API returns it: "If the domain name includes any characters other than a to z, 0 to 9,
 * - (hyphen), or _ (underscore), Route 53 API actions return the characters as escape codes" in the form \three-digit
 * octal (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DomainNameFormat.html); the dots between labels stay.
 */
export function wireName(name: string): string {
  return name.replace(/[^a-z0-9\-_.]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/**
 * The key Route 53 sorts names by: "sorted by name with the labels reversed. For example: com.example.www."
 * (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html and
 * API_ListHostedZonesByName.html), compared as plain characters.
 */
export function reversedName(name: string): string {
  return name.replace(/\.$/, '').split('.').reverse().join('.');
}

/** Orders two names as Route 53's lists do. */
export function compareNames(a: string, b: string): number {
  const x = reversedName(a);
  const y = reversedName(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
