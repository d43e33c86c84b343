/**
 * RFC 9457 problem details: the body of every 4xx (and the rare 5xx) skymarket sends.
 * `type` is about:blank, so `title` is the HTTP status phrase; `slug` is the stable
 * machine-readable code and `detail` says what was wrong with this request.
 */
import { STATUS_CODES } from 'node:http';
import { Type, type Static } from 'typebox';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String(),
    slug: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

export type Problem = Static<typeof ProblemSchema> & Record<string, unknown>;

/** Throw from a handler to answer with a problem body. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
  }
}

export function problemBody(
  status: number,
  slug: string,
  detail: string,
  instance: string,
  extensions: Record<string, unknown> = {},
): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    instance,
    slug,
    ...extensions,
  };
}

export const badRequest = (slug: string, detail: string, extensions?: Record<string, unknown>) =>
  new HttpProblem(400, slug, detail, extensions);
export const notFound = (slug: string, detail: string) => new HttpProblem(404, slug, detail);
