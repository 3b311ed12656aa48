/**
 * Types for the undici modules the card fetcher imports by path (src/http/dispatcher.ts): undici ships
 * declarations for its package root only. Each module's `module.exports` is what the root
 * exports under the same name.
 */
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import { Dispatcher } from 'undici';
  export default Dispatcher;
}

declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';

  /** The methods undici's root installs on `Dispatcher.prototype`; each takes the dispatcher as `this`. */
  const api: Omit<Pick<Dispatcher, 'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect'>, 'request'> & {
    request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  };
  export default api;
}

declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}

declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import { ProxyAgent } from 'undici';
  export default ProxyAgent;
}

declare module 'undici/lib/dispatcher/dispatcher-base.js' {
  import { Dispatcher } from 'undici';
  /**
   * undici's base of its own dispatchers: `dispatch`, `close` and `destroy` (callback or promise)
   * call the methods keyed by the `kDispatch`, `kClose` and `kDestroy` symbols of
   * `undici/lib/core/symbols.js`, and an error thrown by `kDispatch` goes to the handler's `onError`.
   */
  export default Dispatcher;
}

declare module 'undici/lib/core/symbols.js' {
  const kDispatch: unique symbol;
  const kClose: unique symbol;
  const kDestroy: unique symbol;
  const symbols: {
    readonly kDispatch: typeof kDispatch;
    readonly kClose: typeof kClose;
    readonly kDestroy: typeof kDestroy;
  };
  export default symbols;
}
