/** Temporary directories for tests: one made fresh under the system temp directory, and its removal. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  /** the directory, e.g. /tmp/skymarket-craft-Ab12Cd */
  path: string;
  /** deletes the directory and all it holds; does nothing when it is already gone */
  remove(): void;
}

/** Makes a fresh directory named `skymarket-<name>-XXXXXX` under the system temp directory. */
export function tempDir(name: string): TempDir {
  const path = mkdtempSync(join(tmpdir(), `skymarket-${name}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
