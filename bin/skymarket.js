#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, resolved relative to this package.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
