/**
 * Reading an ISO 20022 file (a bank's pain.002, the platform's own pain.001) with fast-xml-parser:
 * well-formedness checked first, no DOCTYPE (no entity can expand or point outside), namespace
 * prefixes dropped, every value kept as the text it is (never parsed into a number). A file that
 * is none of this is a 400 `invalid_parameter` naming what is wrong, never a crash.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { errors } from '@cw/errors';
import { plainText } from './rail-values';

/** The elements that repeat in pain.001 and pain.002 (always read as lists). */
const REPEATED = new Set(['PmtInf', 'CdtTrfTxInf', 'OrgnlPmtInfAndSts', 'TxInfAndSts', 'StsRsnInf', 'AddtlInf', 'NbOfTxsPerSts', 'Ustrd']);

/** 64 MiB: a status report of 100,000 payments is a tenth of it. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export type XmlNode = Record<string, unknown>;

export function invalidFile(detail: string) {
  return errors.invalidParameter('file', detail);
}

/** The parsed document, or a 400 saying why the text is not one. */
export function readIsoXml(text: unknown, what: string): XmlNode {
  if (typeof text !== 'string' || !text.trim()) throw invalidFile(`the ${what} is empty.`);
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw invalidFile(`the ${what} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB.`);
  if (/<!DOCTYPE/i.test(text)) throw invalidFile(`the ${what} declares a DOCTYPE, which ISO 20022 files never do.`);
  const check = XMLValidator.validate(text);
  if (check !== true) throw invalidFile(`the ${what} is not well-formed XML (line ${check.err.line}: ${check.err.msg})`);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // Character references (&#228;) are read as the characters they stand for.
    htmlEntities: true,
    isArray: (name) => REPEATED.has(name),
  });
  try {
    return parser.parse(text) as XmlNode;
  } catch (err) {
    // The parser's own refusals (an element named __proto__, an entity limit) are the file's fault.
    throw invalidFile(`the ${what} cannot be read: ${plainText((err as Error).message, 200)}`);
  }
}

/** A child element, when it is one (not text). */
export function child(node: unknown, name: string): XmlNode | undefined {
  if (!node || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, name)) return undefined;
  const value = (node as XmlNode)[name];
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as XmlNode) : undefined;
}

/** A repeated child element's occurrences (an empty list when absent). */
export function children(node: unknown, name: string): XmlNode[] {
  if (!node || typeof node !== 'object' || !Object.hasOwn(node, name)) return [];
  const value = (node as XmlNode)[name];
  return Array.isArray(value) ? value.filter((v): v is XmlNode => !!v && typeof v === 'object') : [];
}

/** A child element's text (an element with attributes keeps it under `#text`), or undefined. */
export function textOf(node: unknown, name: string): string | undefined {
  if (!node || typeof node !== 'object' || !Object.hasOwn(node, name)) return undefined;
  const value = (node as XmlNode)[name];
  const text = typeof value === 'string' ? value : value && typeof value === 'object' && !Array.isArray(value) ? (value as XmlNode)['#text'] : undefined;
  return typeof text === 'string' && text !== '' ? text : undefined;
}
