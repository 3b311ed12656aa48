/** The real-card corpus shared by the library (corpus.test.ts) and CLI (cli-corpus.test.ts) tables. */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ClientProfile } from '../../src/negotiate/types.js';

/** test/fixtures/cards/real/, with a trailing slash. */
export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/cards/real/', import.meta.url));

/** The fixed profile both tables negotiate with, so their outcomes compare. */
export const CORPUS_PROFILE: ClientProfile = {
  bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
  versions: ['1.0', '0.3', '0.2'],
  accepts: ['application/json', 'text/plain'],
  sends: ['text/plain'],
  streaming: true,
  pushEndpoint: null,
  extensions: [],
};

/** The card files, sorted. */
export const CORPUS_FILES = readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
