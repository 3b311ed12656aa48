/** Messages as the `@a2a-js/sdk` clients take them, for runtime tests that send one: 1.x (`sdkText`) and the 0.3 JSON shape (`text03`). */

/** A user message with one text part `value` (a fresh messageId), as `client.sendMessage({ message })` takes it. */
export function sdkText(value: string) {
  return {
    messageId: crypto.randomUUID(),
    role: 1,
    parts: [{ content: { $case: 'text' as const, value }, mediaType: '', filename: '', metadata: undefined }],
    contextId: '',
    taskId: '',
    extensions: [],
    referenceTaskIds: [],
    metadata: undefined,
  };
}

/** A 0.3 user message with one text part `text` (a fresh messageId unless given), as the 0.3 JSON-RPC `message/send` and the SDK's 0.3 client take it. */
export function text03(text: string, messageId: string = crypto.randomUUID()) {
  return { kind: 'message' as const, messageId, role: 'user' as const, parts: [{ kind: 'text' as const, text }] };
}
