// A rendered section of a document, between its opening and closing markers (the tables in docs/sandbox.md).

/** `doc` with the text from `begin` through `end` replaced by `section` (which holds both markers). */
export function withSection(doc: string, begin: string, end: string, section: string): string {
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the document has no markers ${begin} … ${end}`);
  return doc.slice(0, from) + section + doc.slice(to + end.length);
}
