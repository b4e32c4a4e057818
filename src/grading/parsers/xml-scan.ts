/**
 * A small reader of well-formed XML elements for test reporters' output (doctest's `-r=xml`): tags,
 * attributes with entity references decoded, nesting; comments, processing instructions and CDATA
 * are skipped. Returns undefined where the text is not well-formed (a tag left open, a stray
 * closing tag, an attribute without quotes), where Python's ElementTree would raise.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** Every element below this one named `name`, in document order (ElementTree's `.//name`). */
  descendants(name: string): XmlElement[];
}

const ENTITIES: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decode(text: string): string | undefined {
  let bad = false;
  const out = text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (_m, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(Number(ref.slice(1)));
    const named = ENTITIES[ref];
    if (named === undefined) bad = true;
    return named ?? "";
  });
  return bad || /&(?!(#x[0-9a-fA-F]+|#\d+|\w+);)/.test(text) ? undefined : out;
}

function element(name: string, attributes: Record<string, string>): XmlElement {
  const children: XmlElement[] = [];
  return {
    name,
    attributes,
    children,
    descendants(wanted) {
      const found: XmlElement[] = [];
      const walk = (e: XmlElement) => {
        for (const c of e.children) {
          if (c.name === wanted) found.push(c);
          walk(c);
        }
      };
      walk(this);
      return found;
    },
  };
}

const TAG = /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;

/** The root element of `xml`, or undefined when it is not well-formed. */
export function xmlElements(xml: string): XmlElement | undefined {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    // Text between tags may hold only well-formed references (a bare & is an error).
    if (decode(xml.slice(i, lt < 0 ? xml.length : lt)) === undefined) return undefined;
    if (lt < 0) break;
    if (xml.startsWith("<!--", lt)) {
      const end = xml.indexOf("-->", lt);
      if (end < 0) return undefined;
      i = end + 3;
      continue;
    }
    if (xml.startsWith("<![CDATA[", lt)) {
      const end = xml.indexOf("]]>", lt);
      if (end < 0) return undefined;
      i = end + 3;
      continue;
    }
    if (xml.startsWith("<?", lt)) {
      const end = xml.indexOf("?>", lt);
      if (end < 0) return undefined;
      i = end + 2;
      continue;
    }
    TAG.lastIndex = lt;
    const m = TAG.exec(xml);
    if (!m) return undefined;
    const [, closing, name, attrText, selfClosing] = m;
    i = TAG.lastIndex;
    if (closing) {
      if (attrText || selfClosing) return undefined;
      const open = stack.pop();
      if (!open || open.name !== name) return undefined;
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const a of attrText.matchAll(ATTR)) {
      const value = decode(a[2] ?? a[3] ?? "");
      if (value === undefined || a[1] in attributes) return undefined;
      attributes[a[1]] = value;
    }
    const e = element(name, attributes);
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(e);
    else if (root) return undefined;
    else root = e;
    if (!selfClosing) stack.push(e);
  }
  return root && stack.length === 0 ? root : undefined;
}
