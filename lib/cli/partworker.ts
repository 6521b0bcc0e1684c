// A worker of `loch query` over large files (parts.ts): reads one shard of
// the files through the head of the query and answers with its groups,
// saved, in a transferred buffer (or the error that stopped it).

import { messageOf } from "../errors.ts";
import { runScoped, SplitQuery } from "../query/mod.ts";
import { readShard, type ShardAnswer, type ShardJob } from "./parts.ts";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ShardJob>) => void) | null;
  postMessage(m: ShardAnswer, transfer?: Transferable[]): void;
};

scope.onmessage = async (e) => {
  const { text, ranges } = e.data;
  let answer: ShardAnswer;
  const transfer: Transferable[] = [];
  try {
    const split = SplitQuery.of(text);
    if (split === null) throw new Error("query cannot be read in parts");
    answer = await runScoped(async () => {
      const run = await readShard(split, ranges);
      // (A view of a larger buffer is copied: only a whole buffer transfers.)
      const saved = run.saved()?.slice() ?? null;
      if (saved !== null) transfer.push(saved.buffer);
      return { saved, records: run.records };
    });
  } catch (err) {
    answer = { error: messageOf(err) };
  }
  scope.postMessage(answer, transfer);
};
