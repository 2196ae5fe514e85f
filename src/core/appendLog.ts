/**
 * Immutable lists and sets that grow cheaply: each value is a version that never changes, and the versions of one
 * history share one store that is only ever added to. Adding to the newest version adds to the store (O(1)); a
 * version sees only the first `length` entries of the store, so what was added after it is invisible to it. Adding
 * to an older version, or replacing an entry, copies (O(n)): the store's existing entries are never rewritten.
 *
 * Why not plain arrays copied at each change: the machine's context must not change in place (XState's rule, and
 * what lets a snapshot or the inspector show the truth of its moment), but copying a growing `messages` array every
 * turn is O(n) a turn and falls off a cliff past ~16k elements (V8 allocates such arrays in large-object space:
 * ~4 ms a copy here). These versions cost what an in-place append costs.
 */

/**
 * An array shared with an AppendLog, not a copy: later versions of the log may add entries after its first `length`
 * (the reader's to keep track of), but its first entries never change. Nothing may change it. A model request's
 * `messages` is one: the run's history as it was when the request was made, without copying it every turn.
 */
export type SharedLog<T> = T[];

/** An immutable list; `append` returns a new version and leaves this one as it is. */
export class AppendLog<T> implements Iterable<T> {
  private constructor(
    /** Shared by the versions of one history; only ever appended to. */
    private readonly store: T[],
    readonly length: number,
  ) {}

  static of<T>(items: readonly T[] = []): AppendLog<T> {
    return new AppendLog([...items], items.length);
  }

  /** The item at `index` (negative: from the end), or undefined. */
  at(index: number): T | undefined {
    const i = index < 0 ? this.length + index : index;
    return i >= 0 && i < this.length ? this.store[i] : undefined;
  }

  append(...items: readonly T[]): AppendLog<T> {
    if (items.length === 0) return this;
    const store = this.store.length === this.length ? this.store : this.store.slice(0, this.length);
    for (const item of items) store.push(item);
    return new AppendLog(store, this.length + items.length);
  }

  /** This list with its last item replaced (a copy: no version's entries ever change). */
  withLast(item: T): AppendLog<T> {
    if (this.length === 0) return this.append(item);
    const store = this.store.slice(0, this.length - 1);
    store.push(item);
    return new AppendLog(store, this.length);
  }

  /**
   * This version's items without copying them when it can: the newest version gives the store itself, which later
   * versions append to, so its reader must read only its first `length` items and never change it (`SharedLog`: a
   * model request's `messages`). An older version gives a copy.
   */
  shared(): SharedLog<T> {
    return this.store.length === this.length ? this.store : this.store.slice(0, this.length);
  }

  /** A copy of this version's items, the caller's to keep. */
  toArray(): T[] {
    return this.store.slice(0, this.length);
  }

  /** A snapshot serialised (the inspector, a persisted snapshot) holds this version's items. */
  toJSON(): T[] {
    return this.toArray();
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.store[i] as T;
  }
}

/** An immutable set; `add` returns a new version and leaves this one as it is. */
export class AppendSet<T> implements Iterable<T> {
  private constructor(
    /** Each member with the size of the set before it was added; shared by the versions, only ever added to. */
    private readonly store: Map<T, number>,
    readonly size: number,
  ) {}

  static of<T>(items: Iterable<T> = []): AppendSet<T> {
    let set = new AppendSet<T>(new Map(), 0);
    for (const item of items) set = set.add(item);
    return set;
  }

  has(item: T): boolean {
    const position = this.store.get(item);
    return position !== undefined && position < this.size;
  }

  add(item: T): AppendSet<T> {
    if (this.has(item)) return this;
    const store = this.store.size === this.size ? this.store : new Map([...this].map((member, i) => [member, i]));
    store.set(item, this.size);
    return new AppendSet(store, this.size + 1);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const [item, position] of this.store) {
      if (position >= this.size) return;
      yield item;
    }
  }

  toJSON(): T[] {
    return [...this];
  }
}
