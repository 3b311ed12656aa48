/** Loading the runtime's optional peer dependencies (`@a2a-js/sdk`, and for gRPC `@grpc/grpc-js`). */
import { UsageError } from '../errors.js';

/**
 * Run `load` (dynamic imports of optional peer dependencies).
 * @throws UsageError naming the missing package and how to install it, when one is not installed
 */
export async function peer<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    const name = /Cannot find (?:package|module) '([^']+)'/.exec((error as Error).message)?.[1] ?? 'a peer dependency';
    throw new UsageError(`createClient() needs the optional peer dependency ${name}, which is not installed`, {
      hint: `npm install ${name}`,
    });
  }
}
