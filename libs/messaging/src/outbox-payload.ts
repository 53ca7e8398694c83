/**
 * PostgreSQL's text form of a jsonb value puts one space after every `,` and `:` outside strings and no
 * other whitespace; without those spaces it is what JSON.stringify makes of the parsed value (the bytes
 * the relay sent when it parsed payloads), at a fraction of the cost and with no object graph. Payloads
 * are kept as written (json) since 2026-11-27; those built in SQL with jsonb functions (a submission's QC
 * event) and rows written before still read back in jsonb's form.
 */
export function compactJsonbText(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 32 || c === 10 || c === 9 || c === 13) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * An envelope's JSON as sent: JSON.stringify's form. An object in jsonb's text form has `": ` after its
 * first key, which JSON.stringify's never has outside a string, so a payload without it is compact already
 * and is not scanned (a string holding it only costs the scan).
 */
export function compactPayload(text: string): string {
  return text.startsWith('{') && !text.includes('": ') ? text : compactJsonbText(text);
}
