/** Validates XML against the EPC's pain.001.001.09 schema with libxml2 compiled to WebAssembly (no system install). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validateXML, memoryPages } from 'xmllint-wasm';

const schema = readFileSync(resolve(import.meta.dirname, 'fixtures/pain.001.001.09-epc-sct.xsd'), 'utf8');

/** libxml2's schema errors for `xml` (an empty list: the file is valid). */
export async function pain001SchemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'pain.001.xml', contents: xml }],
    schema: [{ fileName: 'pain.001.001.09-epc-sct.xsd', contents: schema }],
    maxMemoryPages: 256 * memoryPages.MiB,
  });
  return result.valid ? [] : result.errors.map((e) => e.message);
}
