/**
 * Where a request's CPU time goes, by layer, from a V8 CPU profile of the server process: each
 * sample counts for the layer of the innermost frame on its stack that belongs to one (a frame of
 * Node itself, or of a builtin such as JSON.stringify, counts for its caller's layer). Samples whose
 * whole stack is Node's own (socket reads and writes, HTTP parsing, timers) and the garbage
 * collector are layers of their own. Idle samples are left out.
 */

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; hitCount?: number; children?: number[] }[];
}

/** A pattern that matches where any of the alternatives does (their sources joined by `|`). */
const anyOf = (...alternatives: RegExp[]) => new RegExp(alternatives.map((a) => a.source).join('|'));

/** Layers by the file a frame comes from, first match wins. */
const LAYERS: [layer: string, pattern: RegExp][] = [
  ['local adapter (HTTP server → API Gateway event)', /\/infra\/local\//],
  [
    'logging, metrics, tracing',
    /\/@aws-lambda-powertools\/|\/shared\/middleware\/observe\.ts|\/shared\/observability\.ts/,
  ],
  [
    'auth',
    anyOf(
      /\/shared\/middleware\/auth\.ts/,
      /\/shared\/domain\/(password|tokens|login-throttle|auth-header)\.ts/,
      /\/shared\/store\/(users|tokens|login-throttle)\.ts/,
    ),
  ],
  [
    'validation and body parsing',
    anyOf(
      /\/zod\/|\/busboy\//,
      /\/shared\/domain\/(fields|ticket|followup|user|admin|attachment|custom-fields|body)\.ts/,
      /\/shared\/middleware\/(body|multipart)\.ts/,
    ),
  ],
  [
    'serialisation',
    anyOf(
      /\/shared\/domain\/(views|pagination|user-tickets|etag|describe|datetime)\.ts/,
      /\/shared\/middleware\/(http|pages)\.ts/,
    ),
  ],
  [
    'store and AWS calls (marshalling, signing, HTTP)',
    /\/@aws-sdk\/|\/@smithy\/|\/@aws\/|\/aws4fetch\/|\/shared\/store\/|\/shared\/aws\//,
  ],
  ['middleware chain', /\/@middy\/|\/shared\/middleware\/|\/shared\/api\//],
  ['handlers and domain rules', /\/functions\/|\/shared\/domain\//],
];

export const NODE_ONLY = 'Node (sockets, HTTP parsing, timers)';
const GC = 'garbage collection';

function layerOf(url: string): string | undefined {
  if (!url || url.startsWith('node:')) return undefined;
  return LAYERS.find(([, pattern]) => pattern.test(url))?.[0] ?? 'other packages';
}

/** Each layer's share of the non-idle samples (0..1). */
export function profileLayers(profile: CpuProfile): Record<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const layerCache = new Map<number, string>();
  const layerOfNode = (id: number): string => {
    const cached = layerCache.get(id);
    if (cached) return cached;
    const node = byId.get(id)!;
    const parent = parentOf.get(id);
    const layer =
      node.callFrame.functionName === '(garbage collector)'
        ? GC
        : (layerOf(node.callFrame.url) ??
          (parent === undefined || byId.get(parent)!.callFrame.functionName === '(root)'
            ? NODE_ONLY
            : layerOfNode(parent)));
    layerCache.set(id, layer);
    return layer;
  };
  const hits = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const count = node.hitCount ?? 0;
    if (!count || node.callFrame.functionName === '(idle)' || node.callFrame.functionName === '(root)') continue;
    const layer = node.callFrame.functionName === '(program)' ? NODE_ONLY : layerOfNode(node.id);
    hits.set(layer, (hits.get(layer) ?? 0) + count);
    total += count;
  }
  return Object.fromEntries([...hits].sort((a, b) => b[1] - a[1]).map(([layer, count]) => [layer, count / total]));
}
