import { DatasetError } from "./errors.js";

/**
 * Rows of a CSV text as SWE-bench Pro's evaluator reads its sample file (pandas `read_csv`, then
 * `fillna("")`): a header line, then one record per row; fields separated by commas, quoted with
 * `"` when they hold commas, quotes (doubled) or line breaks. Every value is a string; an empty
 * field is "". A record with another number of fields than the header is an error naming its line.
 */
export function parseCsv(text: string, source: string): { rows: Record<string, string>[]; lines: number[] } {
  const records: Array<{ fields: string[]; line: number }> = [];
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = 0;
  const body = text.startsWith("\ufeff") ? text.slice(1) : text;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === "")) records.push({ fields, line: start });
    fields = [];
    field = "";
    start = line;
  };
  while (i < body.length) {
    const c = body[i];
    if (quoted) {
      if (c === '"' && body[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        field += c;
      }
      i++;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || (c === "\r" && body[i + 1] === "\n")) {
      if (c === "\r") i++;
      line++;
      endRecord();
    } else field += c;
    i++;
  }
  if (quoted) throw new DatasetError(`${source}: a quoted field opened on line ${start} is never closed.`);
  if (field !== "" || fields.length > 0) endRecord();
  const [header, ...rest] = records;
  if (!header) return { rows: [], lines: [] };
  const rows = rest.map((r) => {
    if (r.fields.length !== header.fields.length) {
      throw new DatasetError(
        `${source}: the record on line ${r.line} has ${r.fields.length} fields, the header ${header.fields.length}. ` +
          'Quote fields that hold commas or line breaks ("...", with "" for a quote).',
      );
    }
    return Object.fromEntries(header.fields.map((name, k) => [name, r.fields[k]]));
  });
  return { rows, lines: rest.map((r) => r.line) };
}
