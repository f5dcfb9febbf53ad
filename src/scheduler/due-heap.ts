/**
 * A binary min-heap of entries ordered by due time, then by the order they were scheduled in (so entries due
 * together leave first-in first-out). Each entry records its own position, which makes removing or moving an
 * arbitrary entry O(log n) without a search. Entries are the caller's objects, reused across schedules: the
 * heap allocates nothing per operation beyond growing its array.
 */

/** What the heap needs of an entry. `index` is owned by the heap: -1 while the entry is not in it. */
export interface HeapEntry {
  due: number;
  seq: number;
  index: number;
}

export class DueHeap<T extends HeapEntry> {
  private readonly items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  /** The entry due first, without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  has(entry: T): boolean {
    return entry.index >= 0 && this.items[entry.index] === entry;
  }

  /** Adds an entry that is not in the heap. */
  push(entry: T): void {
    entry.index = this.items.length;
    this.items.push(entry);
    this.siftUp(entry.index);
  }

  /** Restores the order after the entry's `due`/`seq` changed while it was in the heap. */
  update(entry: T): void {
    if (!this.siftUp(entry.index)) this.siftDown(entry.index);
  }

  /** Removes and returns the entry due first. */
  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes an entry that is in the heap. */
  remove(entry: T): void {
    const items = this.items;
    const index = entry.index;
    const last = items.pop() as T;
    entry.index = -1;
    if (last === entry) return;
    items[index] = last;
    last.index = index;
    this.update(last);
  }

  /** Empties the heap, marking every entry as outside it. */
  clear(): void {
    for (const entry of this.items) entry.index = -1;
    this.items.length = 0;
  }

  /** Moves the entry at `index` towards the root while it is due before its parent. Returns whether it moved. */
  private siftUp(index: number): boolean {
    const items = this.items;
    const entry = items[index] as T;
    const start = index;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = items[parentIndex] as T;
      if (!before(entry, parent)) break;
      items[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    items[index] = entry;
    entry.index = index;
    return index !== start;
  }

  private siftDown(index: number): void {
    const items = this.items;
    const count = items.length;
    const entry = items[index] as T;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= count) break;
      const right = left + 1;
      let child = items[left] as T;
      let childIndex = left;
      if (right < count && before(items[right] as T, child)) {
        child = items[right] as T;
        childIndex = right;
      }
      if (!before(child, entry)) break;
      items[index] = child;
      child.index = index;
      index = childIndex;
    }
    items[index] = entry;
    entry.index = index;
  }
}

function before(a: HeapEntry, b: HeapEntry): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
