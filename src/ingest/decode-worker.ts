/**
 * A decode worker (decode-pool.ts): receives one page's record bytes and their ranges,
 * returns each record parsed, validated and decoded by prepareAuctionRecord. Bad records
 * come back as 'invalid' or 'undecodable' for the ingest thread to count and skip.
 */
import { parentPort } from 'node:worker_threads';
import { prepareAuctionRecord, type PreparedRecord } from './prepare-auction.ts';

export interface DecodeTask {
  id: number;
  /** UTF-8 bytes holding the records */
  bytes: Uint8Array;
  /** [from, to) byte offsets into `bytes`, two per record */
  ranges: Int32Array;
}

export type DecodeReply = { id: number; records: PreparedRecord[] } | { id: number; error: string };

parentPort?.postMessage('ready');

parentPort?.on('message', (task: DecodeTask) => {
  const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
  try {
    const records: PreparedRecord[] = new Array(task.ranges.length / 2);
    for (let r = 0; r < records.length; r++) records[r] = prepareAuctionRecord(bytes.toString('utf8', task.ranges[2 * r]!, task.ranges[2 * r + 1]!));
    parentPort!.postMessage({ id: task.id, records } satisfies DecodeReply);
  } catch (err) {
    // prepareAuctionRecord does not throw for bad input: this is a bug, reported to the caller.
    parentPort!.postMessage({ id: task.id, error: String((err as Error)?.stack ?? err) } satisfies DecodeReply);
  }
});
