/**
 * The Restate SDK (1.17) calls `Promise.withResolvers`, which Node has from 22 on; agentloop runs on
 * Node 20.19+. Installed before the SDK is used, and only where it is missing.
 */
type WithResolvers = <T>() => { promise: Promise<T>; resolve: (value: T | PromiseLike<T>) => void; reject: (reason?: unknown) => void };

const PromiseWith = Promise as unknown as { withResolvers?: WithResolvers };
if (typeof PromiseWith.withResolvers !== 'function') {
  const withResolvers: WithResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    return { promise, resolve, reject };
  };
  Object.defineProperty(Promise, 'withResolvers', { value: withResolvers, configurable: true, writable: true });
}

export {};
