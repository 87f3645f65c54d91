// Minimal XML writing for the AWS emulators' responses, and Query-protocol list parsing for EC2 requests.

export function esc(value: string | number | boolean): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `<tag>content</tag>`; content is already XML (use `t` for text). */
export function el(tag: string, ...content: Array<string | undefined | false>): string {
  return `<${tag}>${content.filter((c): c is string => typeof c === 'string').join('')}</${tag}>`;
}

/** `<tag>escaped text</tag>`, or nothing when the value is undefined. */
export function t(tag: string, value: string | number | boolean | undefined | null): string {
  return value === undefined || value === null ? '' : `<${tag}>${esc(value)}</${tag}>`;
}

export function items<T>(tag: string, list: readonly T[], render: (item: T) => string, itemTag = 'item'): string {
  return el(tag, ...list.map((x) => el(itemTag, render(x))));
}

/** Values of `Name.1`, `Name.2`, … in a Query-protocol request. */
export function queryList(params: URLSearchParams, name: string): string[] {
  const out: string[] = [];
  for (let i = 1; ; i++) {
    const value = params.get(`${name}.${i}`);
    if (value === null) return out;
    out.push(value);
  }
}

/** Members `Name.N.*` as sub-parameter sets (`TagSpecification.1.Tag.1.Key` -> member 1 has `Tag.1.Key`). */
export function queryMembers(params: URLSearchParams, name: string): URLSearchParams[] {
  const members = new Map<number, URLSearchParams>();
  const prefix = `${name}.`;
  for (const [key, value] of params) {
    if (!key.startsWith(prefix)) continue;
    const rest = key.slice(prefix.length);
    const dot = rest.indexOf('.');
    if (dot < 0) continue;
    const index = Number(rest.slice(0, dot));
    if (!Number.isInteger(index)) continue;
    let member = members.get(index);
    if (!member) members.set(index, (member = new URLSearchParams()));
    member.append(rest.slice(dot + 1), value);
  }
  return [...members.entries()].sort((a, b) => a[0] - b[0]).map(([, m]) => m);
}

/** Tags from `TagSpecification.N` members for one resource type. */
export function tagsFor(params: URLSearchParams, resourceType: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const spec of queryMembers(params, 'TagSpecification')) {
    if (spec.get('ResourceType') !== resourceType) continue;
    for (const tag of queryMembers(spec, 'Tag')) {
      const key = tag.get('Key');
      if (key !== null) tags[key] = tag.get('Value') ?? '';
    }
  }
  return tags;
}
