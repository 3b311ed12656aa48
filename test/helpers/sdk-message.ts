/** Messages as the `@a2a-js/sdk` 1.x client takes them, for runtime tests that send one. */

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
