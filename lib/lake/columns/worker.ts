// The worker thread that builds the columns of big objects while their
// values are still being read and their rows written (workers.ts).

import { parseZsonType } from "../../formats/zson/reader.ts";
import type { Type } from "../../zed/types.ts";
import { ColumnsBuilder } from "./build.ts";
import { encodeColumns } from "./arrowfile.ts";
import { permuteColumns } from "./permute.ts";
import type { ColumnsReply, ColumnsRequest } from "./job.ts";
import { LocalStorage } from "../storage.ts";

interface Session {
  builder: ColumnsBuilder;
  types: Type[];
  /** The first message's failure, reported at the end. */
  error: string | null;
}

const storage = new LocalStorage();
const sessions = new Map<number, Session>();
const scope = self as unknown as { onmessage: unknown; postMessage(m: ColumnsReply): void };

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

scope.onmessage = async (e: MessageEvent<ColumnsRequest>) => {
  const m = e.data;
  let s = sessions.get(m.session);
  if (m.kind === "cancel") {
    sessions.delete(m.session);
    return;
  }
  if (s === undefined) {
    s = { builder: new ColumnsBuilder(1 << 14), types: [], error: null };
    sessions.set(m.session, s);
  }
  if (m.kind === "add") {
    if (s.error !== null) return;
    try {
      for (const t of m.newTypes) s.types.push(parseZsonType(t));
      const types = new Array<Type>(m.typeOf.length);
      for (let i = 0; i < types.length; i++) types[i] = s.types[m.typeOf[i]];
      s.builder.add(
        { types, bufs: m.bufs, chunk: m.chunk, start: m.start, end: m.end },
        null,
        0,
        types.length,
      );
    } catch (err) {
      s.error = message(err);
    }
    return;
  }
  sessions.delete(m.session);
  try {
    if (s.error !== null) throw new Error(s.error);
    const built = permuteColumns(s.builder.finish(), m.order);
    const { bytes, manifest } = encodeColumns(built);
    await storage.createAtomic(m.path, (sink) => sink.write(bytes), { durable: false });
    scope.postMessage({ session: m.session, manifest: JSON.stringify(manifest) });
  } catch (err) {
    scope.postMessage({ session: m.session, error: message(err) });
  }
};
