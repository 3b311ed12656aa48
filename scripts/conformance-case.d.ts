/** Types of scripts/conformance-case.js (the runtime conformance case's one definition). */
import type { z } from 'zod';

export const CONFORMANCE_RULES: readonly string[];
export const CONFORMANCE_PLACEHOLDERS: readonly string[];

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type PatchOp = { op: 'add' | 'replace'; path: string; value: Json } | { op: 'remove'; path: string };

/** One runtime conformance case (conformance/README.md). */
export interface ConformanceCase {
  $schema?: string;
  id: string;
  rule: string;
  description: string;
  fixture?: string;
  lockfile?: Record<string, Json> | string;
  manifest?: Record<string, Json> | string | null;
  patch?: { lockfile?: PatchOp[]; manifest?: PatchOp[] };
  options?: {
    env?: Record<string, string>;
    credentials?: Record<string, Record<string, string>>;
    credentialsFunction?: string;
    originAuth?: Record<string, string>;
    expectDigest?: string;
  };
  agent: string;
  skill?: string;
  responses?: Array<{
    recorder?: 'recorder' | 'other';
    path?: string;
    status: number;
    headers?: Record<string, string>;
    body?: Json;
  }>;
  request: { method: string; url: string; headers?: Record<string, string>; body?: Json; bodyText?: string };
  expect: {
    verdict: 'sent' | 'served' | 'refused';
    code?: string;
    requests: Array<{
      recorder?: 'recorder' | 'other';
      method: string;
      url: string;
      headers?: Record<string, string | null>;
      body?: Json;
      form?: Record<string, string>;
    }>;
    response?: { status?: number; headers?: Record<string, string | null>; body?: Json };
  };
}

export const ConformanceCaseSchema: z.ZodType<ConformanceCase>;
