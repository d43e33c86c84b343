/**
 * Route schemas compiled on first use instead of when the app is built.
 *
 * Fastify compiles every route's validators (Ajv) and response serializers (fast-json-stringify) while the app
 * boots: about half of the CPU a build takes with this app's ~200 routes, paid again by every test that builds an
 * app and reaches two or three routes. Here Fastify's own compilers (the same packages, the same options and shared
 * schemas) are wrapped: each route part gets a function that compiles its schema the first time it is called. The
 * serving process compiles the rest in the background right after it listens (`compileInBackground`), so a
 * request rarely pays it; `compileAll` compiles everything at once, which is how a test proves every schema builds.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (doc: unknown) => string;

export class LazySchemas {
  private readonly pending = new Set<() => void>();
  private compiled = 0;
  // One of each per app, as Fastify keeps them: each pools its compilers by the shared schemas they hold.
  private readonly validators = AjvCompiler();
  private readonly serializers = SerializerSelector();

  /**
   * Fastify's `schemaController.compilersFactory`. Fastify types these factories as returning Ajv's and
   * fast-json-stringify's own functions; ours return wrappers with the same call shape, hence the cast.
   */
  readonly compilersFactory = {
    buildValidator: (externalSchemas: Record<string, object>, options: unknown) => {
      const compile = this.validators(externalSchemas, options as Parameters<ReturnType<typeof AjvCompiler>>[1]);
      return (route: Parameters<typeof compile>[0]) => this.validator(() => compile(route) as unknown as Validate);
    },
    buildSerializer: (externalSchemas: unknown, options: unknown) => {
      const compile = this.serializers(externalSchemas, options as Parameters<ReturnType<typeof SerializerSelector>>[1]);
      return (route: Parameters<typeof compile>[0]) => this.serializer(() => compile(route));
    },
  } as unknown as CompilersFactory;

  /** Schemas compiled so far, and those still waiting for their first use. */
  counts(): { compiled: number; pending: number } {
    return { compiled: this.compiled, pending: this.pending.size };
  }

  /** Compiles every schema not compiled yet; throws the first compile error, naming nothing it did not reach. */
  compileAll(): number {
    const before = this.compiled;
    for (const compile of [...this.pending]) compile();
    return this.compiled - before;
  }

  /** Compiles the waiting schemas one per macrotask, so requests keep their turn; resolves when none is left. */
  async compileInBackground(onError: (error: unknown) => void): Promise<void> {
    for (const compile of [...this.pending]) {
      await new Promise((resolve) => setImmediate(resolve));
      try {
        compile();
      } catch (error) {
        // The route answers its own compile error when called; the log says which schema is broken.
        onError(error);
      }
    }
  }

  /** A getter that builds on its first call, listed as pending until then. */
  private lazily<T>(build: () => T): () => T {
    let real: T | undefined;
    const get = (): T => {
      if (real === undefined) {
        real = build();
        this.pending.delete(get);
        this.compiled++;
      }
      return real;
    };
    this.pending.add(get);
    return get;
  }

  private validator(build: () => Validate): Validate {
    const compiled = this.lazily(build);
    const validate: Validate = (data, context) => {
      const fn = compiled();
      const result = fn(data, context);
      validate.errors = fn.errors;
      return result;
    };
    // Fastify passes the parent object (so Ajv can coerce a root value) only to a function with `schemaEnv`, as
    // Ajv's compiled functions have.
    validate.schemaEnv = true;
    validate.errors = null;
    return validate;
  }

  private serializer(build: () => Serialize): Serialize {
    const compiled = this.lazily(build);
    return (doc) => compiled()(doc);
  }
}
