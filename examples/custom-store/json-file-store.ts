/**
 * A custom ResourceStore: every record in one JSON file, for a single host
 * process. It shows the whole contract an adapter must keep: compare-and-set
 * on `put` and `delete`, independent copies, code-point order in `list`.
 * Writes are serialised in-process and replace the file atomically (write to
 * a temp file, then rename), so a crash never leaves half a file.
 */
import fs from 'node:fs/promises';
import { type ResourceKind, type ResourceRecord } from 'agt-mcp';
import { checkExpectedRevision, expectedRevisionOf, type ResourceStore, type ResourceWrite } from 'agt-mcp/adapters';

type FileContent = Record<string, ResourceRecord>;

export class JsonFileStore implements ResourceStore {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  async #read(): Promise<FileContent> {
    try {
      return JSON.parse(await fs.readFile(this.file, 'utf8')) as FileContent;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }

  // One writer at a time: read, check the revision, write the whole file.
  #exclusive<T>(fn: (content: FileContent) => { result: T; content?: FileContent }): Promise<T> {
    const run = this.#queue.then(async () => {
      const { result, content } = fn(await this.#read());
      if (content !== undefined) {
        const tmp = `${this.file}.${process.pid}.tmp`;
        await fs.writeFile(tmp, JSON.stringify(content));
        await fs.rename(tmp, this.file);
      }
      return result;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async get(kind: ResourceKind, reference: string): Promise<ResourceRecord | undefined> {
    return (await this.#read())[`${kind}:${reference}`];
  }

  async list(kind: ResourceKind, options: { category?: string } = {}): Promise<ResourceRecord[]> {
    return Object.values(await this.#read())
      .filter((r) => r.kind === kind && (options.category === undefined || r.reference.startsWith(`${options.category}/`)))
      .sort((a, b) => (a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0));
  }

  async put(record: ResourceWrite, options: { expectedRevision: number | null }): Promise<ResourceRecord> {
    const expected = expectedRevisionOf(options, 'JsonFileStore.put'); // required: null (create) or the revision read
    return this.#exclusive((content) => {
      const key = `${record.kind}:${record.reference}`;
      const current = content[key];
      checkExpectedRevision(record, expected, current?.revision ?? null); // else revision_conflict, nothing written
      const now = new Date().toISOString();
      const next: ResourceRecord = {
        kind: record.kind,
        reference: record.reference,
        revision: (current?.revision ?? 0) + 1,
        data: JSON.parse(JSON.stringify(record.data)),
        createdAt: current?.createdAt ?? now,
        updatedAt: now,
      };
      return { result: next, content: { ...content, [key]: next } };
    });
  }

  delete(kind: ResourceKind, reference: string, options: { expectedRevision?: number } = {}): Promise<boolean> {
    return this.#exclusive((content) => {
      const key = `${kind}:${reference}`;
      const current = content[key];
      checkExpectedRevision({ kind, reference }, options.expectedRevision, current?.revision ?? null);
      if (current === undefined) return { result: false };
      const { [key]: _removed, ...rest } = content;
      return { result: true, content: rest };
    });
  }
}
